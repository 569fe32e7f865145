"""课程网站：./poet site 把写好的每一课生成静态网页（纯 HTML + 一个 CSS 文件，不用 JavaScript）。

网站的样子：
    site/index.html        课程地图（按学习路径分节，没写好的课标“即将推出”）
    site/glossary.html     术语表，每个词列出用到它的课
    site/NN.html           第 NN 课：路径标题、课文、插图与逐步解读、代码、折叠的答案、上一课 · 下一课
    site/NN/*.py           starter.py、solution.py、experiment.py 的副本，供下载
    site/style.css
页面之间全用相对链接，直接双击 index.html（file://）离线也能看。
构建时检查每个站内链接；有断开的链接或缺文件时不生成网站，报出文件与链接。
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it.token import Token

from poetry_gpt.common import ROOT

from ..catalogue import CATALOGUE, LESSONS_DIR, SECTIONS, Lesson
from .charts import Chart, chart_drawer
from .render import Glossary, code_css, highlight, make_markdown, parse, rewrite_links, split_sections

ASSETS = Path(__file__).with_name("assets")
GLOSSARY_FILE = LESSONS_DIR / "GLOSSARY.md"
MARKER = ".poet-site"
"""生成的网站文件夹里放这个空文件：以后重新生成时，只删除带这个标记的文件夹，不会误删别的东西。"""
CODE_FILES = (
    ("starter.py", "下载起始代码", "查看起始代码 starter.py"),
    ("solution.py", "下载参考答案", "展开本课补全练习的完整参考答案 solution.py"),
    ("experiment.py", "下载本课实验", "展开本课完整、可独立运行的实验代码 experiment.py"),
)
SKIPPED_SECTIONS = ("上一课 · 下一课",)  # 网页底部由课表生成上一课 · 下一课，课文里的这一节不再重复


class SiteError(Exception):
    """网站生成失败；消息是给学习者看的中文，说明哪个文件、哪个链接出了问题。"""


@dataclass
class BuildResult:
    out: Path
    lessons: list[Lesson]
    seconds: float


def lesson_page(lesson: Lesson) -> str:
    return f"{lesson.code}.html"


# ---------- 页面骨架 ----------


def page(title: str, body: str, description: str = "") -> str:
    return f"""<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<meta name="description" content="{escape(description)}">
<link rel="stylesheet" href="style.css">
</head>
<body>
<header class="site-bar">
<a class="brand" href="index.html">一字一诗</a>
<nav><a href="index.html">课程地图</a><a href="glossary.html">术语表</a></nav>
</header>
<main class="page">
{body}
</main>
<footer class="site-foot">一字一诗 · 从一个字到一首绝句，亲手搭一个写诗的小 GPT。本页由 <code>./poet site</code> 生成。</footer>
</body>
</html>
"""


# ---------- 课程地图 ----------


def index_page() -> str:
    parts = [
        f"""<section class="hero">
<p class="path"><span>课程地图</span><span>共 {len(CATALOGUE)} 课</span></p>
<h1>一字一诗</h1>
<p class="lead">给模型一个字，它还你一首绝句。{len(CATALOGUE)} 课里，你从张量的形状讲起，亲手写出汉字表、\
注意力和训练循环，用真实的唐宋绝句训练它，最后学会控制体裁、藏头与押韵。</p>
</section>"""
    ]
    for key, name in SECTIONS.items():
        items = []
        for lesson in (l for l in CATALOGUE if l.section == key):
            inner = (
                f'<span class="num">{lesson.code}</span><span class="t">{escape(lesson.title)}</span>'
                f'<span class="g">{escape(lesson.goal)}</span>'
            )
            if lesson.available:
                items.append(f'<li id="lesson-{lesson.code}"><a href="{lesson_page(lesson)}">{inner}</a></li>')
            else:
                items.append(
                    f'<li id="lesson-{lesson.code}" class="soon"><div>{inner}'
                    f'<span class="badge">即将推出</span></div></li>'
                )
        parts.append(
            f'<section class="map-section"><h2><span class="num">{key}</span>{escape(name)}</h2>'
            f'<ol class="map">{"".join(items)}</ol></section>'
        )
    parts.append('<p class="aside">全课一个概念只用一个名字，见 <a href="glossary.html">术语表</a>。</p>')
    return page("一字一诗 · 课程地图", "\n".join(parts), "一字一诗：亲手搭一个写绝句的小 GPT")


# ---------- 每一课 ----------


def _link_mapping(base: Path):
    """base 文件夹里的 Markdown 中的相对链接（指向 lessons/ 下的文件）→ 网站里的页面。
    没写好的课链到课程地图上那一课的位置；认不出的链接原样保留，交给链接检查报出来。"""
    by_code = {l.code: l for l in CATALOGUE}

    def mapping(href: str) -> str:
        if re.match(r"^[a-z][a-z0-9+.-]*:", href) or href.startswith("#"):
            return href
        target = (base / unquote(urlsplit(href).path)).resolve()
        fragment = urlsplit(href).fragment
        if target == GLOSSARY_FILE.resolve():
            return "glossary.html" + (f"#{fragment}" if fragment else "")
        if target.parent.parent == LESSONS_DIR.resolve() and target.parent.name in by_code:
            other = by_code[target.parent.name]
            if target.name == "README.md":
                return lesson_page(other) if other.available else f"index.html#lesson-{other.code}"
            if target.name in {name for name, _, _ in CODE_FILES}:
                return f"{other.code}/{target.name}"
        return href

    return mapping


def chart_html(chart: Chart) -> str:
    steps = "".join(f"<li>{escape(s)}</li>" for s in chart.steps)
    return (
        f'<figure class="fig"><div class="fig-svg scroll-x">{chart.svg}'
        f"<figcaption>{escape(chart.title)}（构建网站时由仓库里的代码现算）</figcaption></div>"
        f'<div class="fig-walk"><h3>用文字逐步读这张图</h3><ol>{steps}</ol></div></figure>'
    )


def code_blocks(lesson: Lesson) -> str:
    """下载链接，以及折叠起来的三个代码文件（构建时从文件读入，不会与文件不一致）。"""
    links = "\n".join(
        f'<a class="download" href="{lesson.code}/{name}" download>{label}</a>' for name, label, _ in CODE_FILES
    )
    folded = []
    for name, _, summary in CODE_FILES:
        source = (lesson.folder / name).read_text(encoding="utf-8")
        folded.append(
            f'<details class="code-file"><summary>{escape(summary)}</summary>{highlight(source, "python")}</details>'
        )
    return f'<p class="downloads">{links}</p>\n' + "\n".join(folded)


def pager(lesson: Lesson) -> str:
    i = CATALOGUE.index(lesson)
    cells = []
    for other, label, cls in (
        (CATALOGUE[i - 1] if i > 0 else None, "上一课", "prev"),
        (CATALOGUE[i + 1] if i + 1 < len(CATALOGUE) else None, "下一课", "next"),
    ):
        if other is None:
            cells.append(f'<span class="{cls} none"></span>')
        elif other.available:
            cells.append(
                f'<a class="{cls}" rel="{cls}" href="{lesson_page(other)}"><small>{label} · 第 {other.code} 课'
                f"</small>{escape(other.title)}</a>"
            )
        else:
            cells.append(
                f'<a class="{cls} soon" href="index.html#lesson-{other.code}"><small>{label} · 第 {other.code} 课'
                f"（即将推出）</small>{escape(other.title)}</a>"
            )
    return f'<nav class="pager" aria-label="上一课 · 下一课">{"".join(cells)}</nav>'


def lesson_html(lesson: Lesson, glossary: Glossary, chart: Chart | None) -> str:
    md = make_markdown()
    readme = lesson.folder / "README.md"
    tokens = parse(md, readme.read_text(encoding="utf-8"))
    rewrite_links(tokens, _link_mapping(lesson.folder))
    head, sections = split_sections(tokens)
    head = [
        t
        for i, t in enumerate(head)  # 去掉课文的一级标题：网页用课表里的标题
        if not (t.type.startswith("heading") or (i > 0 and head[i - 1].type == "heading_open"))
    ]
    body = []
    for title, toks in sections:
        if title in SKIPPED_SECTIONS:
            continue
        glossary.link_terms(toks, "glossary.html", lesson_page(lesson), f"第 {lesson.code} 课")
        html = md.renderer.render(toks, md.options, {})
        if title.startswith("图解") and chart is not None:
            html += chart_html(chart)
        if title == "动手补全一小段":
            html += code_blocks(lesson)
        body.append(f'<section class="lesson-section">{html}</section>')
    if head:
        body.insert(0, md.renderer.render(head, md.options, {}))
    header = (
        f'<p class="path"><span><a href="index.html">课程地图</a> › 学习路径/{lesson.section} · '
        f"{escape(SECTIONS[lesson.section])}</span><span>第 {lesson.code} 课 · 共 {len(CATALOGUE)} 课</span></p>"
        f'<h1>{escape(lesson.title)}</h1><p class="lead">{escape(lesson.goal)}</p>'
    )
    return page(
        f"第 {lesson.code} 课 · {lesson.title} · 一字一诗",
        header + "\n" + "\n".join(body) + "\n" + pager(lesson),
        lesson.goal,
    )


# ---------- 术语表 ----------


def read_glossary() -> tuple[Glossary, list]:
    """读 lessons/GLOSSARY.md：返回词条锚点和解析好的 token（稍后渲染，那时已知道每个词在哪些课里用到）。"""
    if not GLOSSARY_FILE.is_file():
        raise SiteError(f"找不到术语表文件 {repo_relative(GLOSSARY_FILE)}，网站没有生成。")
    md = make_markdown()
    tokens = parse(md, GLOSSARY_FILE.read_text(encoding="utf-8"))
    anchors = {}
    in_body = False
    for i, tok in enumerate(tokens):
        in_body = (in_body or tok.type == "tbody_open") and tok.type != "tbody_close"
        if in_body and tok.type == "tr_open":
            term = tokens[i + 2].content.strip()  # tr_open, td_open, inline
            anchors[term] = f"term-{len(anchors) + 1}"
    return Glossary(anchors), tokens


def glossary_html(glossary: Glossary, tokens: list[Token]) -> str:
    """术语表页：每行有锚点（课文里的词链到这里），行尾列出用到这个词的课。"""
    md = make_markdown()
    rewrite_links(tokens, _link_mapping(GLOSSARY_FILE.parent))
    out: list[Token] = []
    section, term = None, None
    for i, tok in enumerate(tokens):
        if tok.type in ("thead_open", "tbody_open"):
            section = tok.type
        if section == "tbody_open" and tok.type == "tr_open":
            term = tokens[i + 2].content.strip()
            tok.attrSet("id", glossary.anchors[term])
        if tok.type == "tr_close":
            if section == "thead_open":
                out.append(_html("<th>用到它的课</th>\n", block=True))
            elif term is not None:
                uses = sorted(set(glossary.used.get(term, [])))
                links = "、".join(f'<a href="{p}">{escape(label)}</a>' for p, label in uses)
                out.append(_html(f"<td>{links or '—'}</td>\n", block=True))
        if not (tok.type.startswith("heading") or (i > 0 and tokens[i - 1].type == "heading_open")):
            out.append(tok)
    html = md.renderer.render(out, md.options, {})
    header = (
        '<p class="path"><span><a href="index.html">课程地图</a> › 术语表</span><span>'
        + f"{len(glossary.anchors)} 个词条</span></p><h1>术语表</h1>"
    )
    return page("术语表 · 一字一诗", header + f'<div class="glossary">{html}</div>', "一字一诗的术语表")


def _html(content: str, block: bool = False) -> Token:
    tok = Token("html_block" if block else "html_inline", "", 0)
    tok.content = content
    return tok


# ---------- 生成 ----------


def build(out: Path | None = None) -> BuildResult:
    """生成整个网站到 out（默认仓库里的 site/）。

    先在旁边的临时文件夹里生成并检查链接，全部通过后才替换 out；失败时原来的 out 不动。
    Raises:
        SiteError: out 是别的文件或不是本命令生成的非空文件夹（不会覆盖学习者的文件）；
            缺样式或术语表文件；有断开的站内链接。
    """
    started = time.perf_counter()
    out = Path(out or ROOT / "site").resolve()
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out} 是一个文件，不是文件夹；请用 --out 换一个位置。")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise SiteError(
            f"{out} 里已经有别的文件，而且不是 ./poet site 生成的；为了不覆盖它们，网站没有生成。"
            "请用 --out 指定一个新的或空的文件夹。"
        )
    css = ASSETS / "style.css"
    if not css.is_file():
        raise SiteError(f"找不到样式文件 {repo_relative(css)}，网站没有生成。")
    out.parent.mkdir(parents=True, exist_ok=True)
    lessons = [lesson for lesson in CATALOGUE if lesson.available]
    glossary, glossary_tokens = read_glossary()
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        (tmp / MARKER).write_text("由 ./poet site 生成；重新生成时整个文件夹会被替换。\n", encoding="utf-8")
        (tmp / "style.css").write_text(
            css.read_text(encoding="utf-8") + "\n/* 代码上色（pygments） */\n" + code_css() + "\n", encoding="utf-8"
        )
        sources = {"index.html": ROOT / "courseware/catalogue.py", "glossary.html": GLOSSARY_FILE}
        for lesson in lessons:
            draw = chart_drawer(lesson)
            chart = draw() if draw else None
            (tmp / lesson_page(lesson)).write_text(lesson_html(lesson, glossary, chart), encoding="utf-8")
            sources[lesson_page(lesson)] = lesson.folder / "README.md"
            (tmp / lesson.code).mkdir()
            for name, _, _ in CODE_FILES:
                shutil.copyfile(lesson.folder / name, tmp / lesson.code / name)
        (tmp / "index.html").write_text(index_page(), encoding="utf-8")
        (tmp / "glossary.html").write_text(glossary_html(glossary, glossary_tokens), encoding="utf-8")
        problems = check_links(tmp, sources)
        if problems:
            raise SiteError(f"网站里有 {len(problems)} 处断开的链接，网站没有生成：\n  " + "\n  ".join(problems))
        for path in [tmp, *tmp.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)  # mkdtemp 建的是 0700，网页要让别人也能读
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return BuildResult(out, lessons, time.perf_counter() - started)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """不在终端里逐条打印英文的访问记录。"""

    def log_message(self, format, *args):
        pass


def serve(folder: Path, port: int = 8000) -> None:
    """在 127.0.0.1:port 上提供 folder 里的网页，按 Ctrl+C 停止。

    Raises:
        OSError: 端口已被占用等。
    """
    handler = functools.partial(_QuietHandler, directory=str(folder))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"网站预览：http://127.0.0.1:{port}/index.html（按 Ctrl+C 停止）", flush=True)
        server.serve_forever()


# 站内链接检查：生成好的每一页里，链到的文件要在，#锚点要在目标页里有对应的 id


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
