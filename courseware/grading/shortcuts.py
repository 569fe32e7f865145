"""本课 check.py 的源码规则：用 ast 查学习者的源码里有没有不许用的捷径（FORBIDDEN、FORBIDDEN_NAMES、
source_problem）。在可信的父进程里、运行任何学习者代码之前查。"""

from __future__ import annotations

import ast
import builtins
import re

from ..catalogue import Lesson
from .course import lesson_check
from .submission import parse_learner

_MAIN_GUARD = ast.dump(ast.parse('__name__ == "__main__"', mode="eval").body)


def _may_set_name(code: ast.AST) -> bool:
    """code 可能改动模块的 __name__：什么地方写出了 __name__（名字、属性、参数、global、import as、match 的 as、
    字符串里的字），或有 from … import *（别的模块可以经 __all__ 给出 __name__）。"""
    for node in ast.walk(code):
        if isinstance(node, ast.alias) and node.name == "*":
            return True
        for _, value in ast.iter_fields(node):
            if any(isinstance(v, str) and "__name__" in v for v in (value if isinstance(value, list) else [value])):
                return True
    return False


def learner_code(tree: ast.Module) -> ast.Module:
    """学习者文件里要受源码规则约束的部分：差分检查时会运行的代码。

    差分检查把文件当模块导入（__name__ 不是 "__main__"），顶层的 if __name__ == "__main__": 那一段（底部的可见检查，
    不论是哪一版起始代码里的，学习者在里面加了什么）不运行，所以不查：旧版起始文件的可见检查里自己会用到
    softmax、F.gelu 这类答案里不许用的名字。那一段的 else 照查。文件别处可能改动 __name__（_may_set_name：
    改成 "__main__"，那一段在导入时也就运行了）时，整个文件照查。"""
    body = [s for node in tree.body for s in (node.orelse if _is_main_guard(node) else [node])]
    code = ast.Module(body=body, type_ignores=[])
    return tree if _may_set_name(code) else code


def _is_main_guard(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.dump(node.test) == _MAIN_GUARD


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


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUIET_CALLS = {"print"} | {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
}  # 直接写在这些内置函数、内置异常的参数里的字符串只是给人看的文字（名字在文件里没被重新定义时）


def _plain_text(code: ast.Module, bound: set[str]) -> set[int]:
    """只是给人看的字符串节点的 id：文档字符串与单独成句的字符串、assert 的消息、内置 print 与内置异常
    （ValueError("…")）的参数（f-string 的常量部分也算）。其余每个字符串都可能经 getattr 的别名、vars(...)[...]、.format 之类变成名字，都要查。"""
    quiet = set()
    for node in ast.walk(code):
        texts = []
        if isinstance(node, ast.Expr):
            texts = [node.value]
        elif isinstance(node, ast.Assert) and node.msg is not None:
            texts = [node.msg]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _QUIET_CALLS
            and node.func.id not in bound
        ):
            texts = list(node.args)
        for text in texts:
            if isinstance(text, ast.JoinedStr):
                quiet.add(id(text))
                quiet.update(id(v) for v in text.values if isinstance(v, ast.Constant))
            elif isinstance(text, ast.Constant):
                quiet.add(id(text))
    return quiet


def _string_value(node: ast.AST) -> str | None:
    """字符串节点里直接写出的文字：str 与 bytes 常量、f-string 的常量部分连起来（{…} 处断开）。"""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
        return node.value.decode("latin-1")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Constant) and v.format_spec is None:
                v = v.value  # f"cross_{''}entropy"：{} 里直接写出的常量照样连上
            parts.append(str(v.value) if isinstance(v, ast.Constant) else " ")
        return "".join(parts)
    return None


def used_names(code: ast.Module) -> list[tuple[int, int, str]]:
    """代码用到的外来名字，按出现的位置排：[(行, 列, 名字)]。

    算进来的有：属性名（F.softmax 的 softmax）、import 的模块与名字的每一段（poetry_gpt.metrics 的两段）、
    没在文件里定义过的名字、match 的类模式里的属性名（case object(softmax=f)），以及每个字符串里直接写出的名字
    （"torch.softmax"、f"soft{''}max" 的常量部分、b"softmax"：它们能经 getattr 的别名、vars(...)[...]、
    .format 这些路变成函数）。文档字符串、单独成句的字符串、assert 的消息、内置 print 与内置异常的参数只是文字，不算。
    拼出来的字符串（"poetry" + "_gpt"）查不到：见 reflection 与 runner 的绊线。
    """
    bound = _bound_names(code)
    quiet = _plain_text(code, bound)
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
        elif isinstance(node, ast.MatchClass):
            found += [(*at, attr) for attr in node.kwd_attrs]
        elif id(node) not in quiet and (text := _string_value(node)) is not None:
            found += [(*at, word) for word in _WORD.findall(text)]
    return sorted(found, key=lambda f: f[:2])  # 同一位置的几个名字保持源码的次序


REFLECTIVE = frozenset(
    {
        # 翻命名空间、按字符串取名字
        "__dict__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__builtins__", "builtins",
        "attrgetter", "methodcaller", "getmembers", "getmembers_static",
        # 从函数、类、栈帧里往回找
        "__globals__", "__closure__", "__code__", "__defaults__", "__kwdefaults__", "__wrapped__", "__func__",
        "__self__", "__subclasses__", "__mro__", "__bases__", "__base__", "__loader__", "__spec__",
        "__reduce__", "__reduce_ex__", "_getframe", "f_locals", "f_globals", "f_builtins", "f_back", "tb_frame",
        "gi_frame", "cr_frame", "get_objects", "get_referrers", "get_referents",
        # 整个模块就是干这个的
        "inspect", "gc", "ctypes", "pickle", "marshal", "pydoc", "runpy", "copyreg", "dill", "codeop",
    }
)  # fmt: skip
"""有源码规则的课里一律不许用的名字：用它们可以不写出名字就拿到函数（vars(F)[...]、getattr 的别名、
F.__getattribute__、栈帧与垃圾回收器里翻找……），源码规则因此查不到。练习本身用不着它们。"""
REFLECTIVE_BUILTINS = frozenset({"vars", "globals", "locals", "dir", "eval", "exec", "compile", "breakpoint"})
"""只有当内置函数用时（没在文件里定义过的名字，直接写出）才不许用的名字：re.compile、model.eval() 这样的属性
是别的函数；要经属性拿到内置的这几个，得先写出 builtins 或 __builtins__（在 REFLECTIVE 里）。"""
_BY_NAME = {"getattr", "hasattr", "setattr", "delattr", "__import__", "import_module"}  # 第二个参数是名字的调用


def reflection(code: ast.Module) -> tuple[int, str] | None:
    """第一处“不写出名字就拿到函数”的写法：(行, 说明)；没有时为 None。

    REFLECTIVE 里的名字（属性、没在文件里定义过的名字、import 的模块）；REFLECTIVE_BUILTINS 里没在文件里定义过的
    名字（vars(F)，不是 re.compile）；getattr、setattr、__import__、
    import_module 这类按名字取东西的函数不是直接调用、名字不是直接写出的字符串（getattr(F, name)、
    getattr(F, *names)、g = getattr、functools.partial(getattr, F)）。"""
    bound = _bound_names(code)
    direct = set()
    for node in ast.walk(code):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _BY_NAME:
                direct.add(id(func))
                where = 1 if name in ("getattr", "hasattr", "setattr", "delattr") else 0
                args = node.args
                if (
                    any(isinstance(a, ast.Starred) for a in args)
                    or node.keywords
                    or len(args) <= where
                    or not (isinstance(args[where], ast.Constant) and isinstance(args[where].value, str))
                ):
                    return node.lineno, f"{name} 的名字不是直接写出的字符串"
    found = [(line, name) for line, _, name in used_names(code) if name in REFLECTIVE]
    found += [
        (node.lineno, node.id)
        for node in ast.walk(code)
        if isinstance(node, ast.Name) and node.id in REFLECTIVE_BUILTINS and node.id not in bound
    ]
    if found:
        return min(found)
    for node in ast.walk(code):
        name = node.id if isinstance(node, ast.Name) and node.id not in bound else getattr(node, "attr", None)
        if name in _BY_NAME and id(node) not in direct:
            return node.lineno, f"{name} 不是直接调用（当成值传来传去）"
    return None


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
    code = learner_code(parse_learner(text))
    for line, _, name in used_names(code):
        key = next((k for k in forbidden if k.lower() in name.lower()), None)
        if key is not None:
            return f"第 {line} 行用了 {name}。{forbidden[key]}"
        if name in exact:
            return f"第 {line} 行用了 {name}。{exact[name]}"
    if (forbidden or exact) and (found := reflection(code)):
        line, what = found
        return (
            f"第 {line} 行用了 {what}：这一课有不许用的捷径，批改程序要能从源码里读出你用了哪些函数，"
            f"所以不写出名字就拿到函数的写法（vars、globals、__dict__、getattr 的名字不是直接写出的字符串、"
            f"栈帧与 gc 里翻找……）在这一课都不许用。练习用不着它们：直接写出要用的函数"
        )
    return custom(code) if custom else None
