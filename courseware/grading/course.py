"""本课的 check.py 与参考答案：载入（每个进程一次）、每课固定的随机种子、在可信的父进程里算出的参考输出。"""

from __future__ import annotations

import builtins
import functools
import importlib.util
from pathlib import Path

import torch

from ..catalogue import Lesson
from . import wire


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def lesson_check(lesson: Lesson):
    """这一课的 check.py 模块（它能定义的名字见本包的说明）。每个进程只载入一次：
    ./poet grade 在运行任何学习者代码之前就载入，之后被改动的 check.py 进不了批改进程。"""
    return _load(lesson.folder / "check.py", f"check_{lesson.code}")


def default_seed(lesson: Lesson) -> int:
    """差分检查默认的随机种子：每课固定，学习者每次检查拿到同样的用例。"""
    return lesson.number * 1000 + 7


@functools.cache
def reference(lesson: Lesson, seed: int):
    """(用例列表, 参考答案在每个用例上的输出)。在可信的父进程里算一次，之后复用。"""
    check = lesson_check(lesson)
    solution = _load(lesson.folder / "solution.py", f"solution_{lesson.code}")
    cases = check.cases(torch.Generator().manual_seed(seed))
    errors = [(name, getattr(builtins, name)) for name in expected_errors(lesson)]

    def expected(args):
        try:
            return solution.solve(*args)
        except tuple(cls for _, cls in errors) as e:  # 这个用例本该 raise（如第 26 课预算太小）
            return wire.Raised(next(name for name, cls in errors if isinstance(e, cls)))

    return cases, [expected(args) for args in cases]


def expected_errors(lesson: Lesson) -> tuple[str, ...]:
    """check.py 的 RAISES：某些用例上 solve 应当 raise 的内置异常名（如 ("ValueError",)）；没有时为空。"""
    return tuple(getattr(lesson_check(lesson), "RAISES", ()))


def fresh_result(lesson: Lesson) -> bool:
    """check.py 的 FRESH_RESULT：返回的张量不许与输入张量共用内存。"""
    return bool(getattr(lesson_check(lesson), "FRESH_RESULT", False))


def tripwires(lesson: Lesson) -> tuple[str, ...]:
    """check.py 的 TRIPWIRES：差分检查时换成绊线的 torch 函数（"torch.nn.functional.cross_entropy"）与算子
    （"aten::_log_softmax"）；没有时为空。见 runner.install_tripwires。"""
    return tuple(getattr(lesson_check(lesson), "TRIPWIRES", ()))


def uncovered_kinds(lesson: Lesson, seed: int) -> list[str]:
    """check.py 的 KINDS 里，种子 seed 生成的用例一个也没有覆盖到的种类（按 KINDS 的次序）；
    判断函数收到 (用例, 参考输出)。没有 KINDS 的课返回 ["（check.py 没有 KINDS）"]。"""
    kinds = getattr(lesson_check(lesson), "KINDS", None)
    if not kinds:
        return ["（check.py 没有 KINDS）"]
    cases, expected = reference(lesson, seed)
    return [name for name, hit in kinds.items() if not any(hit(c, e) for c, e in zip(cases, expected))]
