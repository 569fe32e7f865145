"""课文里的 Python 代码块要么是课程代码的原文，要么写明是简化过的：./poet verify 与
tests/courseware/test_figures.py 用它。

一个 ```python 代码块，去掉空行、每行去掉首尾空白之后，若是某个课程文件（poetry_gpt/、courseware/ 下的模块、各课的
experiment.py、solution.py、check.py）里连续的几行，就是“原文”，不必标注；课程代码改了、原文对不上了，就报错。

不是原文的代码块，紧挨着代码块的上一行要写一行标记（纯文字，代码托管网站、./poet lesson N --read 与课程网站
都照样显示）：

- ``（简化自 poetry_gpt/sampling.py 的 filter_logits）``：课程代码的简化版；文件和其中的函数（或类、类.方法）
  必须存在，改名、删掉了就报错。只写文件不写名字也可以：``（简化自 poetry_gpt/train.py）``。
- ``（示意，不是课程包里的代码）``：演示用的几行（在终端里试的、讲一个写法的），不对应任何课程代码。

标了“简化自”的代码块若其实与原文一字不差，也报错（去掉标记就好）：标记只说实话。
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from poetry_gpt.common import ROOT

from .imports import PACKAGES

SIMPLIFIED = re.compile(r"（简化自 (?P<path>[\w/.]+\.py)(?: 的 (?P<name>[\w.]+))?）")
SKETCH = "（示意，不是课程包里的代码）"


def course_files() -> list[Path]:
    """原文可以出自哪些文件。"""
    lessons = sorted(
        p for name in ("experiment.py", "solution.py", "check.py") for p in (ROOT / "lessons").glob(f"*/{name}")
    )
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py")) + lessons


def code_lines(text: str) -> list[tuple[str, int]]:
    """一段代码里非空的各行（去掉注释与首尾空白）与行号（从 1 数）。注释是写给读者的话，课文里常常另写，
    不算“原文”的一部分；代码本身一个字也不能差。读不成 Python 的片段（括号没配齐）按“两个空格加 #”去注释。"""
    lines = text.splitlines()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                lines[row - 1] = lines[row - 1][:col]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        lines = [re.sub(r"(^|\s\s)#(?!.*[\"']).*$", "", line) for line in text.splitlines()]
    return [(line.strip(), n) for n, line in enumerate(lines, start=1) if line.strip()]


@cache
def _stripped(path: Path) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """文件里非空、去掉注释的各行与它们的行号。"""
    kept = code_lines(path.read_text(encoding="utf-8"))
    return tuple(t for t, _ in kept), tuple(n for _, n in kept)


@lru_cache(maxsize=1)
def _index() -> dict[str, list[tuple[Path, int]]]:
    """课程代码的每一行（去掉注释与空白）→ 它出现在哪些 (文件, 第几个非空行)。"""
    index: dict[str, list[tuple[Path, int]]] = {}
    for path in course_files():
        for i, line in enumerate(_stripped(path)[0]):
            index.setdefault(line, []).append((path, i))
    return index


def find_verbatim(lines: list[str]) -> tuple[Path, int] | None:
    """代码块（非空、去掉首尾空白的各行）在哪个课程文件的第几行起一字不差地出现；没有时 None。"""
    for path, i in _index().get(lines[0], []):
        text, numbers = _stripped(path)
        if list(text[i : i + len(lines)]) == lines:
            return path, numbers[i]
    return None


def defines(path: Path, name: str) -> bool:
    """path 里有没有这个名字的函数、类，或“类.方法”。"""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scope = tree.body
    for part in name.split("."):
        found = next(
            (
                n
                for n in scope
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part
            ),
            None,
        )
        if found is None:
            found = next(
                (
                    n
                    for n in scope
                    if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == part for t in n.targets)
                ),
                None,
            )
            return found is not None and part == name.split(".")[-1]
        scope = found.body
    return True


@dataclass(frozen=True)
class Block:
    """课文里的一个 ```python 代码块：fence 是开头那行 ``` 的行号（从 1 数）。"""

    fence: int
    lines: tuple[str, ...]
    mark: str  # 紧挨着的上一行（去掉首尾空白）


def python_blocks(markdown: str) -> list[Block]:
    lines = markdown.splitlines()
    blocks, start = [], None
    for n, line in enumerate(lines, start=1):
        stripped = line.strip()
        if start is None and stripped.startswith("```"):
            start = (n, stripped[3:].strip())
            body = []
        elif start is not None and stripped.startswith("```"):
            if start[1] == "python":
                above = next((lines[k].strip() for k in range(start[0] - 2, -1, -1) if lines[k].strip()), "")
                blocks.append(Block(start[0], tuple(t for t, _ in code_lines("\n".join(body))), above))
            start = None
        elif start is not None:
            body.append(line)
    return blocks


@dataclass(frozen=True)
class ExcerptReport:
    path: str
    verbatim: int
    simplified: int
    sketches: int
    problems: tuple[str, ...]  # “path:line：原因”


def check_excerpts(path: str) -> ExcerptReport:
    """查一篇课文（相对仓库的路径）里的每个 Python 代码块。"""
    counts = {"verbatim": 0, "simplified": 0, "sketches": 0}
    problems = []
    for block in python_blocks((ROOT / path).read_text(encoding="utf-8")):
        where = f"{path}:{block.fence}"
        found = find_verbatim(list(block.lines)) if block.lines else None
        mark = SIMPLIFIED.fullmatch(block.mark)
        if block.mark == SKETCH:
            counts["sketches"] += 1
        elif mark:
            source = ROOT / mark["path"]
            if found:
                problems.append(
                    f"{where}：代码块与 {found[0].relative_to(ROOT)} 第 {found[1]} 行起一字不差，"
                    f"去掉上一行的“简化自”标记"
                )
            elif not source.is_file():
                problems.append(f"{where}：标记里的 {mark['path']} 不存在")
            elif mark["name"] and not defines(source, mark["name"]):
                problems.append(f"{where}：{mark['path']} 里没有 {mark['name']}（改名了？）")
            else:
                counts["simplified"] += 1
        elif found:
            counts["verbatim"] += 1
        else:
            first = block.lines[0] if block.lines else ""
            problems.append(
                f"{where}：代码块（{first[:40]}…）不是课程代码的原文。课程代码改过了，就照着改代码块；"
                f"是有意简化的，在它上一行写“（简化自 文件 的 函数）”，演示用的写“{SKETCH}”"
            )
    return ExcerptReport(path, counts["verbatim"], counts["simplified"], counts["sketches"], tuple(problems))
