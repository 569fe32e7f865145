"""课文引来的诗要与记录下来的输出对得上：figures.check_text 查数的同时查它们（规则见 figures.py 的模块说明）。

一首诗或一联——两句以上、每句同样是 5 个或 7 个汉字、句末是“，。？！；”——写在引号“…”或「…」里，
或独占一行（前后没有别的汉字），就当作引用了一次运行写出的诗：它的每一句都要按次序出现在来源里。
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HAN = "\u3400-\u9fff"
_POEM = re.compile(
    rf"(?<![{_HAN}])(?:(?:[{_HAN}]{{5}}[，。？！；]){{2,}}|(?:[{_HAN}]{{7}}[，。？！；]){{2,}})(?![{_HAN}])"
)
_VERSE = re.compile(rf"[{_HAN}]+[，。？！；]")
POEM_GAP = 40
"""引来的诗相邻两句在来源里最多隔这么多个字（去掉空白之后）：“第 2 句：”这样的编号放得下，别的诗放不下。"""
QUOTE_RULE = "模型写的诗照记录抄，一个字也不改；人写的诗记录里没有"
"""对不上时消息里的说明（后面接“就在 figures.toml 里放行”）。"""


def blank_inline(text: str) -> str:
    """把一行课文里的行内代码与链接地址换成同样长的空白（位置不变）：里面的数与诗不算。"""
    text = re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), text)
    return re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group()), text)


def prose_lines(markdown: str):
    """课文里要查的行：(行号（从 1 数）, 去掉行内代码与链接地址的这一行)。```text 图解与正文里的行；
    ```python、```json、```bash 等代码块里的不算（figures 与引诗共用）。"""
    fence = None
    for n, line in enumerate(markdown.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fence = None if fence is not None else line.lstrip()[3:].strip()
            continue
        if fence in (None, "", "text"):
            yield n, blank_inline(line)


@dataclass(frozen=True)
class Quote:
    """课文里引来的一首诗或一联：在第 line 行，start:end 是它在这一行里的位置。"""

    text: str
    line: int
    start: int
    end: int


def poems_in(markdown: str) -> list[Quote]:
    """课文里引来的诗（规则见模块说明）：引号里的，或独占一行的；json、python 等代码块与行内代码里的不算。"""
    found = []
    for n, plain in prose_lines(markdown):
        for m in _POEM.finditer(plain):
            before, after = plain[: m.start()], plain[m.end() :]
            quoted = before.rstrip().endswith(("“", "「"))
            alone = not re.search(f"[{_HAN}]", before) and not re.search(f"[{_HAN}]", after)
            if quoted or alone:
                found.append(Quote(m.group(), n, m.start(), m.end()))
    return found


def quoted_in(poem: str, text: str) -> bool:
    """poem 的每一句是否按次序出现在 text 里（空白已去掉），相邻两句之间最多隔 POEM_GAP 个字。"""
    verses = _VERSE.findall(poem)
    start = text.find(verses[0])
    while start >= 0:
        at = start + len(verses[0])
        for verse in verses[1:]:
            found = text.find(verse, at)
            if found < 0 or found - at > POEM_GAP:
                break
            at = found + len(verse)
        else:
            return True
        start = text.find(verses[0], start + 1)
    return False
