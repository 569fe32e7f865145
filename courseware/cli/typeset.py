"""./poet lesson N --read：在终端里排出整篇课文（rich 的 Markdown，换掉三样东西）。

- 正文按 Unicode 的断行规则 UAX #14 折行（poetry_gpt.labs.fold_lines，实验的输出也用它）：任意两个汉字之间都能折，
  句号、逗号、右引号不放到行首，左引号不留在行尾，数与英文词不拆开；行内代码（`…`）里不折。rich 自己只在空格处折，
  “第 20”之后的一长串汉字会整个挪到下一行。
- 代码块与文字图不折进去乱排：放得下的行原样不动，太长的行在名字的边界折开，接下去的行以 ↪ 开头
  （与 ./poet solution 相同，code_view.fold_spans）。
- 网页上折起来的答案（<details>）在终端里也折起来，只留一行怎样打开；--answers 时照印，前面加一行醒目的标记。
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.markdown import CodeBlock, Markdown, Paragraph
from rich.measure import Measurement
from rich.syntax import Syntax
from rich.text import Text

from poetry_gpt.labs import fold_lines

from .code_view import CONTINUED, comment_start, fold_spans
from .display import console

_DETAILS = re.compile(r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", re.S)
INLINE_CODE = "markdown.code"
"""rich 给行内代码的样式名：这样的一段里不折行。"""


class Wrapped:
    """一段按 labs.fold_lines 折好行的正文（rich 的可渲染对象）。"""

    def __init__(self, text: Text, hanging: int = 0):
        self.text = text
        self.hanging = hanging
        """第二行起缩进几格（图下面编了号的批注：接下去的行与号后的字对齐）。"""

    def __rich_measure__(self, console, options) -> Measurement:
        return Measurement(min(8, options.max_width), min(cell_len(self.text.plain), options.max_width))

    def __rich_console__(self, console, options):
        code = console.get_style(INLINE_CODE, default=None)  # rich 给 span 的是解析好的 Style，不是样式名
        sealed = [(s.start, s.end) for s in self.text.spans if code is not None and s.style == code]
        spans = fold_lines(self.text.plain, max(1, options.max_width - self.hanging), sealed=sealed)
        out = Text("\n" + " " * self.hanging, style=self.text.style).join(self.text[a:b] for a, b in spans)
        out.no_wrap, out.overflow, out.end = True, "ignore", "\n"
        yield out


class ChineseParagraph(Paragraph):
    def __rich_console__(self, console, options):
        yield Wrapped(self.text)


ARROW = "←"
"""文字图里的批注以它开头：“3e-3 ┤  ●······   ← 第 100 步：峰值”。"""
NOTE_MARKS = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


def _column(line: str, col: int) -> int:
    """line 里从显示的第 col 格开始的字符下标（汉字占两格）。"""
    i = 0
    while i < len(line) and cell_len(line[: i + 1]) <= col:
        i += 1
    return i


def notes_below(lines: list[str]) -> tuple[list[str], list[str]]:
    """文字图右边的批注挪到图下面：“← 第 100 步：峰值……”换成“← ①”，图下面一条条列出“① 第 100 步：峰值……”。
    批注接着写在下一行同一列上的（上一行的 ← 往右两格起，左边这两格空着）算同一条。图本身一格不动。"""
    figure, notes = [], []
    column = None  # 上一条批注的 ← 在第几格
    for line in lines:
        if ARROW in line and len(notes) < len(NOTE_MARKS):
            at = line.index(ARROW)
            column = cell_len(line[:at])
            notes.append(line[at + 1 :].strip())
            figure.append(f"{line[:at]}{ARROW} {NOTE_MARKS[len(notes) - 1]}")
            continue
        if column is not None and notes:
            at = _column(line, column)
            if line[at : _column(line, column + 2)].strip() == "" and line[_column(line, column + 2) :].strip():
                notes[-1] += line[_column(line, column + 2) :].strip()
                figure.append(line[:at].rstrip())
                continue
        column = None
        figure.append(line)
    return figure, [f"{NOTE_MARKS[i]} {note}" for i, note in enumerate(notes)]


class FoldedCodeBlock(CodeBlock):
    """代码块与文字图：上色，不在中间折行。放不下时：文字图右边的批注挪到图下面、编上号（notes_below），图一格不动；
    代码行尾对齐用的一串空格缩成两个；还放不下的行在名字的边界折开，下一行以 ↪ 开头、多缩进两格。"""

    def __rich_console__(self, console, options):
        code = str(self.text).rstrip()
        width = max(20, options.max_width)
        notes: list[str] = []
        if self.lexer_name == "text" and ARROW in code and any(cell_len(l) > width for l in code.split("\n")):
            lines, notes = notes_below(code.split("\n"))
            code = "\n".join(lines)
        highlighted = Syntax(code, self.lexer_name, theme=self.theme).highlight(code)
        highlighted.rstrip()
        for line in highlighted.split("\n", allow_blank=True):
            if self.lexer_name != "text":
                line = _squeezed(line, width)
            indent = min(len(line.plain) - len(line.plain.lstrip(" ")) + 2, width - 20)
            for i, (a, b) in enumerate(fold_spans(line.plain, width, width - indent - 2, self.lexer_name == "text")):
                piece = line[a:b] if i == 0 else Text(" " * indent + CONTINUED + " ", style="dim") + line[a:b]
                piece.no_wrap, piece.overflow = True, "ignore"
                yield piece
        for note in notes:
            yield Wrapped(Text(note), hanging=2)


def _squeezed(line: Text, width: int) -> Text:
    """放不下的一行代码：行尾注释前对齐用的一串空格（三个以上）缩成两个。"""
    plain = line.plain
    at = comment_start(plain)
    gap = len(plain[:at]) - len(plain[:at].rstrip(" "))
    if cell_len(plain) <= width or at == len(plain) or gap < 3 or not plain[:at].strip():
        return line
    return line[: at - gap + 2] + line[at:]


class ChineseMarkdown(Markdown):
    elements = {
        **Markdown.elements,
        "paragraph_open": ChineseParagraph,
        "fence": FoldedCodeBlock,
        "code_block": FoldedCodeBlock,
    }


def lesson_text(markdown: str, number: int, answers: bool = False) -> None:
    """排出一篇课文。answers=False 时每个小练习的答案只留一行“答案折起来了”与打开的命令。"""

    def fold(m: re.Match) -> str:
        if answers:
            return f"**【{m.group(1).strip()}】往下就是答案**\n{m.group(2)}"
        return f"*（{m.group(1).strip()}：答案折起来了，想好了再看：`./poet lesson {number} --read --answers`）*\n"

    console.print(ChineseMarkdown(_DETAILS.sub(fold, markdown)))
