"""起始代码由参考答案生成：starter.py 就是 solution.py，只把 solve 的函数体（文档字符串之后的部分）
换成一句 ``raise NotImplementedError``（nbgrader 的做法：答案只写一份，题目由它生成）。

维护者改了某课的 solution.py 之后运行 ``./poet verify --starters`` 重写各课的 starter.py；
tests/lessons/test_all_lessons.py 检查每一课提交的 starter.py 与生成的一字不差。学习者的文件从不被它改动：
``./poet start N`` 复制的是提交进仓库的 starter.py。
"""

from __future__ import annotations

import ast

from poetry_gpt.common import atomic_write_text

from ..catalogue import Lesson

NAMES_IN_SOLVE = """\
    tree = ast.parse(inspect.getsource(solve))  # 读语法树：注释不在里面，文档字符串与字符串只是常量，不是名字
    used = [getattr(n, k) for n in ast.walk(tree) for k in ("attr", "id", "name") if isinstance(getattr(n, k, 0), str)]
"""
"""可见检查看 solve 用了哪些名字（本课不许用的捷径）时，一律用这两行：读语法树，注释、文档字符串与字符串都不算，
和批改程序的源码规则（grading/shortcuts.py）一样。起始文件要能单独下载，沙箱里也没有 poetry_gpt，所以这两行
原样写在各课 solution.py 的底部（由它生成进 starter.py）；tests/lessons/test_case_kinds.py 查每一份都与这里一字不差。"""


def stub(lesson: Lesson) -> str:
    """起始代码里 solve 的函数体：一句告诉学习者下一步做什么的 raise。"""
    n = lesson.number
    return f'raise NotImplementedError("请补全 solve，然后运行 ./poet check {n} 检查；卡住时运行 ./poet hint {n} 看提示。")'


def starter_text(lesson: Lesson) -> str:
    """由 lessons/NN/solution.py 生成的 starter.py 全文。

    Raises:
        ValueError: solution.py 里没有顶层的 ``def solve``。
    """
    text = (lesson.folder / "solution.py").read_text(encoding="utf-8")
    solve = next(
        (node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef) and node.name == "solve"), None
    )
    if solve is None:
        raise ValueError(f"{lesson.folder / 'solution.py'} 里没有顶层的 def solve")
    body = solve.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and len(body) > 1:
        body = body[1:]  # 文档字符串留在起始代码里：它就是题目
    lines = text.splitlines(keepends=True)
    indent = " " * body[0].col_offset
    return "".join(lines[: body[0].lineno - 1]) + indent + stub(lesson) + "\n" + "".join(lines[solve.end_lineno :])


def write_starters(lessons) -> list[Lesson]:
    """重写与生成结果不同的 starter.py（原子写入），返回改了的课。"""
    changed = []
    for lesson in lessons:
        text = starter_text(lesson)
        path = lesson.folder / "starter.py"
        if path.read_text(encoding="utf-8") != text:
            atomic_write_text(path, text)
            changed.append(lesson)
    return changed
