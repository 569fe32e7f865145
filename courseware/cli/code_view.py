"""poet 里看代码的输出：./poet solution 的参考答案（带行号），./poet diff 的并排两栏与统一差异（长行在名字的边界折开）。

输出用的 console 与折行的 Prose 在 display。
"""

from __future__ import annotations

import difflib

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from .display import Prose, console


def comment_start(line: str) -> int:
    """一行代码里注释（#）开始的下标；没有注释时是 len(line)。引号里的 # 不算。"""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote and line[i - 1] != "\\" else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return i
    return len(line)


def fold_spans(line: str, width: int, later: int | None = None, words: bool = False) -> list[tuple[int, int]]:
    """一行代码折成几段，第一段不超过 width 格、之后的每段不超过 later 格（默认也是 width），返回每段在 line 里的
    (开始, 结束)：只在空格、逗号或左括号之后折，不拆开一个名字或数；实在没有这样的位置（一个名字、一串汉字比
    整行还长）才硬折。折开处两边的空格不算进段里。

    行尾的注释（# 之后）只在括号外的空格与中文标点之后折，“# 各 [B, T, C]”不会从括号中间断开；整条注释放得进下一段时，
    就在 # 之前折，注释整条挪到下一段。words=True（文字图）时整行都像注释那样折：“[V, C]”不拆开。"""
    spans: list[tuple[int, int]] = []
    start = 0
    hash_at = 0 if words else comment_start(line)
    depth = [0] * (len(line) + 1)  # 注释里每个位置的括号深度
    for i in range(hash_at, len(line)):
        depth[i + 1] = max(0, depth[i] + (line[i] in "([") - (line[i] in ")]"))
    while cell_len(line[start:]) > (width if not spans or later is None else later):
        if spans and later is not None:
            width = later
        rest = line[start:]
        cut = max(
            (
                i + 1
                for i, ch in enumerate(rest)
                if (ch in " ,([" if start + i < hash_at else ch in " ，。；：、" and depth[start + i] == 0)
                and rest[i : i + 2] not in ("()", "[]")  # 不折开空的一对括号
                and cell_len(rest[: i + 1]) <= width
                and rest[: i + 1].strip()
            ),
            default=0,
        )
        comment = line[hash_at:]
        if start + cut > hash_at and start < hash_at and line[start:hash_at].strip():
            if cell_len(comment) <= (later or width) and cell_len(line[start:hash_at].rstrip()) <= width:
                cut = hash_at - start  # 代码放得下、注释也能整条放进下一段：在 # 之前折
        if not cut:
            cut = next(i for i in range(len(rest), 0, -1) if cell_len(rest[:i]) <= width)
        spans.append((start, start + len(rest[:cut].rstrip())))
        start += cut + len(rest[cut:]) - len(rest[cut:].lstrip())
    return spans + [(start, len(line))]


def fold_code(line: str, width: int) -> list[str]:
    """一行代码折成几行（见 fold_spans）。"""
    return [line[a:b] for a, b in fold_spans(line, width)]


CONTINUED = "↪"
"""折开的代码行，接下去的几行以它开头：看得出接着上一行，没有一个字被截掉。"""


def solution(lesson, source: str) -> None:
    """./poet solution：参考答案的 solve。终端上带行号、上色，长行在名字的边界折开，接下去的行号处写 ↪；
    输出接到管道或文件里时原样印出源码（不加行号、不折行），可以直接存成 .py。代码从不被截掉。"""
    from rich.syntax import Syntax

    console.print(f"第 {lesson.code} 课参考答案（lessons/{lesson.code}/solution.py 中的 solve）：")
    if not console.is_terminal:
        console.print(Text(source.rstrip("\n")), soft_wrap=True)
        return
    code = Syntax(source, "python").highlight(source)
    code.rstrip()
    lines = code.split("\n", allow_blank=True)
    digits = len(str(len(lines)))
    width = max(20, console.width - digits - 3)  # 行号、一个空格、竖线、一个空格之后
    for number, line in enumerate(lines, 1):
        indent = min(len(line.plain) - len(line.plain.lstrip(" ")) + 4, width - 20)  # 接下去的行多缩进 4 格
        for i, (a, b) in enumerate(fold_spans(line.plain, width, width - indent)):
            mark = f"{number:>{digits}} │ " if i == 0 else f"{CONTINUED:>{digits}} │ " + " " * indent
            console.print(Text(mark, style="dim") + line[a:b], no_wrap=True, overflow="ignore")


def solve_diff(lesson, mine: str, ref: str) -> None:
    """学习者的 solve 与参考答案：终端放得下时先并排（不折行），再给一份统一格式的差异。

    统一差异里一行太长时在空格、逗号、括号处折开，接下去的几行也以这一行的 + - 开头，再加 ↪ 表示接着上一行，
    所以每一行都看得出属于哪一边；并排两栏放不下最长的行时不并排（折开的代码并排读不清）。"""
    from rich.syntax import Syntax

    if mine == ref:
        console.print("你的 solve 与参考答案一字不差。")
        return
    widest = max(cell_len(line) for line in (mine + ref).splitlines())
    if 2 * widest + 7 <= console.width:  # 两栏的边框与留白共 7 格
        t = Table(title=f"第 {lesson.code} 课：你的 solve 与参考答案", title_justify="left")
        t.add_column("你的代码", no_wrap=True)
        t.add_column("参考答案", no_wrap=True)
        t.add_row(Syntax(mine, "python"), Syntax(ref, "python"))
        console.print(t)
    else:
        console.print(
            Prose(
                f"第 {lesson.code} 课：你的 solve 与参考答案（终端宽 {console.width} 列，放不下并排的两栏，"
                f"只列差异；较长的行折开，↪ 表示接着上一行）",
                phrase=True,
                style="bold",
            )
        )
    styles = {"+": "green", "-": "red", "@": "cyan"}
    for line in difflib.unified_diff(mine.splitlines(), ref.splitlines(), "你的代码", "参考答案", lineterm=""):
        style = "bold" if line.startswith(("+++", "---")) else styles.get(line[:1], "")
        head, body = (line, "") if line.startswith(("+++", "---", "@@")) else (line[:1], line[1:])
        pieces = fold_code(body, max(20, console.width - 4)) if body else [""]
        console.print(Text(head + pieces[0], style=style), no_wrap=True, overflow="ignore")
        for piece in pieces[1:]:
            console.print(Text(f"{head}  ↪ {piece}", style=style), no_wrap=True, overflow="ignore")
