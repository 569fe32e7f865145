"""源码里的导入（用 ast 读，不运行，所以函数里的延迟导入也算在内）：一份导入图，两处用。

./poet verify 的文件指纹要知道一课（连同批改程序）用到了哪些课程模块（package_imports）；
tests/courseware/test_architecture.py 用同一份导入图（imports_of）检查分层、循环导入与 CLI 启动时不碰 torch。
模块一律写全名，如 "courseware.catalogue"。
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from poetry_gpt.common import ROOT

PACKAGES = ("poetry_gpt", "courseware")
"""课程的两个包（模型库、课件）：它们的模块写全名，别的包只记第一段。"""


def _ours(target: str) -> bool:
    return target.split(".")[0] in PACKAGES


def module_name(path: Path) -> str:
    """源文件的模块全名：courseware/selfcheck/verify.py → "courseware.selfcheck.verify"；
    包的 __init__.py 是包本身的名字。path 必须在仓库里（否则 ValueError）。"""
    parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_file(name: str) -> Path:
    """模块全名对应的源文件：模块的 .py，或包的 __init__.py（都不存在时返回后者，用 is_file() 查）。"""
    path = ROOT / name.replace(".", "/")
    module = path.with_name(path.name + ".py")
    return module if module.is_file() else path / "__init__.py"


@cache
def modules() -> dict[str, Path]:
    """两个包的每一个模块：全名 → 源文件。"""
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _nodes(tree: ast.AST, top_level: bool) -> Iterator[ast.AST]:
    """树里的节点；top_level 时不进函数体（只要模块载入时就执行的导入）。"""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if not (top_level and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))):
            stack.extend(ast.iter_child_nodes(node))


def _statements(path: Path, top_level: bool) -> Iterator[tuple[str, list[str]]]:
    """path 里的每一条导入：(导入的模块的全名, from 之后取的名字)，``import x.y`` 时名字是空的。
    相对导入按 path 在包里的位置解析；包外的文件里的相对导入不是课程包的，略过。"""
    inside = any(path.resolve().is_relative_to(ROOT / package) for package in PACKAGES)
    package = path.resolve().parent.relative_to(ROOT).parts if inside else ()
    for node in _nodes(ast.parse(path.read_bytes(), str(path)), top_level):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []
        elif isinstance(node, ast.ImportFrom):
            if not node.level:
                yield node.module or "", [a.name for a in node.names]
            elif inside and node.level - 1 < len(package):
                base = list(package[: len(package) - (node.level - 1)])
                yield ".".join(base + ([node.module] if node.module else [])), [a.name for a in node.names]


def imports_of(path: Path, top_level: bool = False) -> dict[str, set[str]]:
    """path 导入的模块 → 从中取的名字（``import x`` 时是空集）。两个包的模块写全名，
    ``from poetry_gpt import model`` 取的是一个模块，记作 "poetry_gpt.model"；别的包只写第一段（torch、argparse…）。
    top_level 时只算模块载入时就执行的导入（不算函数里的延迟导入）。"""
    found: dict[str, set[str]] = {}
    for target, names in _statements(path, top_level):
        if not _ours(target):
            found.setdefault(target.split(".")[0], set())
        elif not names:
            found.setdefault(target, set())
        for a in names if _ours(target) else ():
            sub = f"{target}.{a}"
            if sub in modules():
                found.setdefault(sub, set())
            else:
                found.setdefault(target, set()).add(a)
    return found


def package_imports(path: Path) -> set[str]:
    """path 直接用到的课程模块（全名，不含两个包本身）：它导入的模块，
    连同 ``from 包 import 模块`` 里的那个包，如 {"poetry_gpt.model", "courseware.grading", "courseware.grading.verdict"}。"""
    names = set()
    for target, taken in _statements(path, top_level=False):
        if _ours(target):
            names.add(target)
            names.update(f"{target}.{a}" for a in taken)
    return {n for n in names if n not in PACKAGES and n in modules()}
