"""网站的站内链接检查：生成好的每一页里，链到的文件要在，#锚点要在目标页里有对应的 id。"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from poetry_gpt.common import ROOT


def repo_relative(path: Path) -> str:
    """报错里写的文件位置：仓库里的文件写成相对仓库根的路径，仓库外的原样。"""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


class _Links(HTMLParser):
    """收集一页里的链接（href、src）和元素 id。"""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)
            if name == "id" and value:
                self.ids.add(value)


def check_links(folder: Path, sources: dict[str, Path]) -> list[str]:
    """检查 folder 下每个 .html 里的站内链接：目标文件存在，#锚点在目标页里有对应的 id。

    sources: 页面文件名 → 它的来源文件（用于在报错里指出该改哪个文件）。返回问题列表（中文），没问题时为空。
    """
    pages = {p: _Links() for p in sorted(folder.rglob("*.html"))}
    for path, parser in pages.items():
        parser.feed(path.read_text(encoding="utf-8"))
    problems = []
    for path, parser in pages.items():
        name = path.relative_to(folder).as_posix()
        where = f"{name}（来自 {repo_relative(sources[name])}）" if name in sources else name
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("mailto:"):
                continue  # 站外链接不检查（离线时也打不开）
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_file() or folder.resolve() not in target.parents:
                problems.append(f"{where} 里的链接“{link}”：找不到目标文件")
            elif parts.fragment and target in pages and parts.fragment not in pages[target].ids:
                problems.append(f"{where} 里的链接“{link}”：目标页里没有 #{parts.fragment} 这个位置")
    return list(dict.fromkeys(problems))  # 同一页里同一个坏链接只报一次
