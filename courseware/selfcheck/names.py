"""文字里点到的名字要真有：课文、README、ARCHITECTURE.md 与文档字符串写的文件、模块里的函数与常量、./poet 的命令与选项。

改了名字、删了函数，代码里的测试会失败，说明文字却不会；这里把行内代码（Markdown 的 `…`、文档字符串的 ``…``）
里像名字的东西逐个找出来核对：

- 仓库里的路径 ``poetry_gpt/x.py``、``lessons/24/README.md``：文件或文件夹要在（写 ``NN``、``*`` 的是泛指，不查）；
- ``x.py``：仓库里要有叫这个名字的 Python 文件；
- ``模块.名字``、``模块.名字()``：模块是课程包里的（按最后一段认，如 ``verse``、``grading.shortcuts``；最后一段有两个模块同名时
  要写出上一级，如 ``site.build``），名字要在这一个模块里，
  或是这个模块里哪个类的方法、字段（``model.eval()`` 这样的实例调用；别的模块的类有同名字段不算）；``nn.GELU`` 这样的 torch 名字也查；
  不认识的模块后面跟一个全大写的常量（``verse_rules.STOCK_OPENINGS``）算写错了模块；
- ``./poet 命令 --选项``：命令要有，选项要是这个命令的。

别的（变量 ``tok.tokens``、数、一段代码）不查。学习者自己的文件（catalogue.EXERCISE）与训练写出的文件不在仓库里，不算。
"""

from __future__ import annotations

import importlib
import re
import subprocess
import types
from functools import cache
from pathlib import Path

from poetry_gpt.common import ROOT

from ..catalogue import EXERCISE
from .imports import PACKAGES

_SPAN = re.compile(r"``([^`\n]+)``|`([^`\n]+)`")
_PATH = re.compile(r"(poetry_gpt|courseware|lessons|bench|tests|results|figures|data)/[\w./-]+")
_DOTTED = re.compile(r"([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)(?:\(.*\))?")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]+")
_DATA_FILE = re.compile(r"\w+\.(pt|toml|txt|gz|json|jsonl|md|csv|html|svg)(\.gz)?")
_SELF = "courseware/selfcheck/names.py"
OUTSIDE = {"nn": "torch.nn", "F": "torch.nn.functional", "torch": "torch"}
"""课文里常用的外部模块简称 → 模块：``nn.GELU``、``F.cross_entropy``、``torch.multinomial`` 也要真有。"""


@cache
def _tracked() -> tuple[str, ...]:
    """仓库里由 git 管的文件（相对路径）；不在 git 仓库里时退回到遍历课程包、课与 bench。"""
    try:
        out = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, encoding="utf-8", check=True
        )
        return tuple(out.stdout.split())
    except (OSError, subprocess.CalledProcessError):
        return tuple(
            str(p.relative_to(ROOT)) for d in (*PACKAGES, "lessons", "bench") for p in (ROOT / d).rglob("*.py")
        )


@cache
def _modules() -> dict[str, list[str]]:
    """课程包里每个模块的最后一段（以及最后两段）→ 叫这个名字的模块的全名，如 ``shortcuts`` → ``[courseware.grading.shortcuts]``。"""
    found: dict[str, list[str]] = {p: [p] for p in PACKAGES}
    for f in _tracked():
        if f.split("/")[0] in PACKAGES and f.endswith(".py"):
            dotted = f[:-3].replace("/", ".").removesuffix(".__init__")
            parts = dotted.split(".")
            for short in {parts[-1], ".".join(parts[-2:])}:
                if dotted not in found.setdefault(short, []):
                    found[short].append(dotted)
    return found


@cache
def _class_members(module: str) -> frozenset[str]:
    """module 里定义的类的方法、字段与属性，连同继承来的（PoetryGPT 从 torch.nn.Module 继承 eval）：
    ``model.eval()`` 这样用模块名称呼实例的写法，只在这个模块自己的类里找，别的模块的类有同名字段不算。
    torch.Tensor 的方法（``loss.item()``）到处都算。"""
    import inspect

    import torch

    names = set(dir(torch.Tensor))
    for cls in vars(importlib.import_module(module)).values():
        if isinstance(cls, type) and cls.__module__ == module:
            names |= set(dir(cls)) | set(getattr(cls, "__annotations__", {}))
            names |= set(re.findall(r"self\.(\w+)\s*[:=]", inspect.getsource(cls)))
    return frozenset(names)


def _resolves(module: str, attrs: list[str]) -> bool:
    """module.attrs[0].attrs[1]… 找得到（子模块也算）；找不到的那一段是 module（或路上的子模块）里某个类的方法或字段也算。"""
    try:
        obj = importlib.import_module(module)
    except ImportError:
        return False
    home = module
    for attr in attrs:
        if hasattr(obj, attr):
            obj = getattr(obj, attr)
        elif isinstance(obj, types.ModuleType) and _importable(f"{obj.__name__}.{attr}"):
            obj = importlib.import_module(f"{obj.__name__}.{attr}")
            home = obj.__name__
        else:
            return attr in _class_members(home)
    return True


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


@cache
def _commands() -> dict[str, frozenset[str]]:
    """./poet 的每个命令 → 它收的选项（如 ``--resume``）。"""
    import argparse

    from ..cli.main import build_parser

    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: frozenset(p._option_string_actions) for name, p in actions[0].choices.items()}


def problem(name: str) -> str | None:
    """一个行内代码里的名字找不到时说为什么，找得到或不像名字时 None。"""
    name = re.sub(r"^:\w+:", "", name.strip()).strip("`")
    if name.startswith("./poet "):
        words = name.split()
        if len(words) < 2 or words[1].startswith("-"):
            return None
        options = _commands().get(words[1])
        if options is None:
            return f"没有 ./poet {words[1]} 这个命令"
        unknown = [w.split("=")[0] for w in words[2:] if w.startswith("--") and w.split("=")[0] not in options]
        return f"./poet {words[1]} 没有 {unknown[0]} 这个选项" if unknown else None
    if _PATH.fullmatch(name):
        if "NN" in name or EXERCISE in name or (ROOT / name.rstrip("/")).exists():
            return None
        return "仓库里没有这个文件或文件夹"
    if _DATA_FILE.fullmatch(name):  # model.pt、figures.toml：数据与训练写出的文件，不是模块里的名字
        return None
    if re.fullmatch(r"\w+\.py", name):
        if "NN" in name or name == EXERCISE or any(Path(f).name == name for f in _tracked()):
            return None
        return "仓库里没有叫这个名字的 Python 文件"
    dotted = _DOTTED.fullmatch(name)
    if dotted is None:
        return None
    head, attrs = dotted.group(1), dotted.group(2).split(".")[1:]
    # 最后两段也认：grading.shortcuts.X 的 grading.shortcuts；一个名字只在它指的那一个模块里找
    if len(attrs) > 1 and f"{head}.{attrs[0]}" in _modules():
        head, attrs = f"{head}.{attrs[0]}", attrs[1:]
    candidates = _modules().get(head) or ([OUTSIDE[head]] if head in OUTSIDE else None)
    if candidates and len(candidates) > 1:
        return f"{head} 可以指 {'、'.join(candidates)}：写出上一级的包，只指其中一个"
    if candidates:
        return None if _resolves(candidates[0], attrs) else f"{candidates[0]} 里没有 {'.'.join(attrs)}"
    if len(attrs) == 1 and _CONSTANT.fullmatch(attrs[0]) and head.islower():
        return f"课程包里没有叫 {head} 的模块"
    return None


def unknown_names(path: str) -> list[str]:
    """path（相对仓库根目录）里点到而找不到的名字，每个一条“path:行: `名字`：原因”。Markdown 查行内代码与
    bash 代码块里的 ./poet 命令，Python 文件查文档字符串、注释与帮助文字里的 ``…``/`…`。"""
    problems, fence = [], None
    for n, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), start=1):
        if path.endswith(".md") and line.lstrip().startswith("```"):
            fence = None if fence is not None else line.lstrip()[3:].strip()
            continue
        if fence in ("bash", "sh", "console"):  # 命令的代码块：每条 ./poet 命令也查
            names = [line.strip().removeprefix("$ ")] if line.strip().removeprefix("$ ").startswith("./poet ") else []
        else:
            names = [m.group(1) or m.group(2) for m in _SPAN.finditer(line)]
        for name in names:
            why = problem(name)
            if why:
                problems.append(f"{path}:{n}: `{name}`：{why}")
    return problems


OLD_NAMES = ("CHANGELOG.md", "docs/maintainers.md")
"""两篇更新记录：记的是改名之前的旧名字，不查。"""


def texts() -> list[str]:
    """要查的文字：各处的 Markdown 与课程包、课、bench 里的 Python 文件。更新记录（OLD_NAMES）记的是旧名字，
    这个模块的说明举的是错例，都不查。"""
    return [
        f
        for f in _tracked()
        if (f.endswith(".md") and f not in OLD_NAMES)
        or (f.endswith(".py") and f.split("/")[0] in (*PACKAGES, "lessons", "bench") and f != _SELF)
    ]
