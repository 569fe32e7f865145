"""本课 check.py 的源码规则：用 ast 查学习者的源码里有没有不许用的捷径（FORBIDDEN、FORBIDDEN_NAMES、
source_problem）。在可信的父进程里、运行任何学习者代码之前查。"""

from __future__ import annotations

import ast
import functools

from ..catalogue import Lesson
from .course import lesson_check

_MAIN_GUARD = ast.dump(ast.parse('__name__ == "__main__"', mode="eval").body)
_BY_NAME = {"getattr", "hasattr", "setattr", "delattr", "__import__", "import_module"}  # 第二个参数是名字的调用


@functools.cache
def given_checks(lesson: Lesson) -> frozenset[str]:
    """starter.py 底部 if __name__ == "__main__": 里每条语句的 ast.dump（不含行号）：课程给的可见检查。"""
    tree = ast.parse((lesson.folder / "starter.py").read_text(encoding="utf-8"))
    return frozenset(
        ast.dump(stmt)
        for node in tree.body
        if isinstance(node, ast.If) and ast.dump(node.test) == _MAIN_GUARD
        for stmt in node.body
    )


def learner_code(lesson: Lesson, tree: ast.Module) -> ast.Module:
    """学习者文件里要受源码规则约束的部分：整个文件，只去掉 if __name__ == "__main__": 里原样保留的
    课程可见检查（它们自己会用到 F.gelu、nn.Linear 这类答案里不许用的名字）。学习者在那里加的语句照样算。"""
    given = given_checks(lesson)
    body = []
    for node in tree.body:
        if isinstance(node, ast.If) and ast.dump(node.test) == _MAIN_GUARD:
            body += [stmt for stmt in node.body if ast.dump(stmt) not in given] + node.orelse
        else:
            body.append(node)
    return ast.Module(body=body, type_ignores=[])


def _bound_names(code: ast.Module) -> set[str]:
    """文件里自己定义的名字（赋值、参数、def、class、import 进来的名字……）。有 import * 时为空集：
    那时任何名字都可能来自别的模块。"""
    bound = set()
    for node in ast.walk(code):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return set()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def used_names(code: ast.Module) -> list[tuple[int, int, str]]:
    """代码用到的外来名字，按出现的位置排：[(行, 列, 名字)]。

    算进来的有：属性名（F.softmax 的 softmax）、import 的模块与名字的每一段（poetry_gpt.metrics 的两段）、
    没在文件里定义过的名字，以及 getattr(x, "名字")、__import__("模块") 这类调用里直接写出的字符串。
    注释、文档字符串、一般的字符串都不算；拼出来的字符串（"poetry" + "_gpt"）也查不到。
    """
    bound = _bound_names(code)
    found = []
    for node in ast.walk(code):
        at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
            found.append((*at, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((*at, node.attr))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            dotted = [getattr(node, "module", None) or ""] + [a.name for a in node.names]  # 照源码的次序
            found += [(*at, part) for name in dotted for part in name.split(".") if part and part != "*"]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _BY_NAME:
                found += [
                    (*at, part)
                    for arg in node.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                    for part in arg.value.split(".")
                ]
    return sorted(found, key=lambda f: f[:2])  # 同一位置的几个名字保持源码的次序


def rule_problem(lesson: Lesson, text: str) -> str | None:
    """这一课的源码规则（check.py 的 FORBIDDEN 与可选的 source_problem）查学习者的源码：合规时为 None，
    否则是中文原因（带行号）。在可信的父进程里、运行任何学习者代码之前查。

    FORBIDDEN = {片段: 原因}：used_names 里的某个名字（不分大小写）含有这个片段，就是不许用的捷径，
    如 "softmax" 拦下 torch.softmax、F.log_softmax、nn.Softmax。FORBIDDEN_NAMES = {名字: 原因} 只拦一模一样的
    名字（"nn" 拦下 torch.nn，不拦 annotations、channel 这些碰巧含有它的名字）。source_problem(code) 收到 learner_code
    的 ast.Module，查名字以外的规则（如第 08 课的 weight[...]）。
    """
    check = lesson_check(lesson)
    forbidden = getattr(check, "FORBIDDEN", {})
    exact = getattr(check, "FORBIDDEN_NAMES", {})
    custom = getattr(check, "source_problem", None)
    if not forbidden and not exact and custom is None:
        return None
    code = learner_code(lesson, ast.parse(text))
    for line, _, name in used_names(code):
        key = next((k for k in forbidden if k.lower() in name.lower()), None)
        if key is not None:
            return f"第 {line} 行用了 {name}。{forbidden[key]}"
        if name in exact:
            return f"第 {line} 行用了 {name}。{exact[name]}"
    return custom(code) if custom else None
