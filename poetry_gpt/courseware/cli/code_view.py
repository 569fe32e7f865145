"""poet 里看代码的输出：./poet solution 的参考答案（带行号），./poet diff 的并排两栏与统一差异（长行在名字的边界折开）。

输出用的 console 与折行的 Prose 在 display。
"""

from __future__ import annotations

import difflib

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from .display import Prose, console


def fold_code(line: str, width: int) -> list[str]:
    """一行代码折成几行，每行不超过 width 格：只在空格、逗号或左括号之后折，不拆开一个名字或数；
    实在没有这样的位置（一个名字比整行还长）才硬折。"""
    pieces: list[str] = []
    while cell_len(line) > width:
        cut = max(
            (
                i + 1
                for i, ch in enumerate(line)
                if ch in " ,([" and cell_len(line[: i + 1]) <= width and line[: i + 1].strip()
            ),
            default=0,
        )
        if not cut:
            cut = next(i for i in range(len(line), 0, -1) if cell_len(line[:i]) <= width)
        pieces.append(line[:cut].rstrip())
        line = line[cut:].lstrip()
    return pieces + [line]


def solution(lesson, source: str) -> None:
    from rich.syntax import Syntax

    console.print(f"第 {lesson.code} 课参考答案（lessons/{lesson.code}/solution.py 中的 solve）：")
    console.print(Syntax(source, "python", line_numbers=True))


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
