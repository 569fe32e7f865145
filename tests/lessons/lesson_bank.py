"""错解库共用的两件事：把错误的 solve 写进一份练习文件，以及在本进程里作出 ./poet check 的判定。

本进程里的判定就是 ./poet check 的 grading.check_file，只多一个 in_process=True：同样先读文件、查语法与本课的源码规则，
同一份随机用例与参考答案、同一次 wire 往返与格式核对、同一个判定函数（grading.judge，含“输入不许被改动”、两次调用都要对），
只是学习者的文件在本进程里运行（runner.run：先可见检查，再每个用例调用 solve 两次）——省掉子进程与沙箱。
一次子进程要一两秒（导入 torch），几百个错解就是几分钟；子进程、沙箱与各种限制另由
tests/lessons/test_all_lessons.py 与 tests/hostile/test_hostile_check.py 用真正的 ./poet check 测。
"""

import re
import textwrap
from pathlib import Path

from courseware.catalogue import CATALOGUE
from courseware.grading import Verdict, check_file, expected_errors

LESSONS = {lesson.number: lesson for lesson in CATALOGUE}


def wrong_file(number: int, body: str, folder: Path) -> Path:
    """第 number 课的 starter.py，只把 solve 里的 raise NotImplementedError 换成 body，其余（含可见检查）原样。"""
    starter = (LESSONS[number].folder / "starter.py").read_text(encoding="utf-8")
    start = starter.index("    raise NotImplementedError(")
    end = starter.index("\n", start)
    path = folder / f"wrong_{number:02d}.py"
    path.write_text(
        starter[:start] + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + starter[end:], encoding="utf-8"
    )
    return path


_EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception)\b|\bStopIteration\b")


def message_problem(number: int, verdict: Verdict) -> str | None:
    """课程自己写的判定消息里不该有的东西：“无法与参考答案比较”（check.py 的 compare 自己出了错），
    或 Python 的异常名（AttributeError……：说明某条消息的路径没走通；本课 RAISES 里的名字除外，
    “应当 raise ValueError”是题目本身）。学习者自己的代码抛出的异常（崩溃、可见检查没通过的错误栈）
    原样显示，不算；“答案错误”只看第一行，即课程写的原因。"""
    if "无法与参考答案比较" in verdict.message:
        return "compare 出错"
    if verdict.kind == "wrong" and not verdict.message.startswith("可见检查没通过"):
        reason = verdict.message.split("\n")[0]
        allowed = expected_errors(LESSONS[number])
        if found := [m.group() for m in _EXCEPTION_NAME.finditer(reason) if m.group() not in allowed]:
            return f"原因里有 Python 的异常名 {found[0]}"
    return None


def verdict_of(number: int, path: Path) -> Verdict:
    """第 number 课对练习文件 path 的判定，在本进程里算（见模块说明）。
    每个判定的消息都要走得通（message_problem）：错解库的每一条因此也查了本课 check.py 的消息路径。"""
    verdict = check_file(LESSONS[number], path, in_process=True)
    assert message_problem(number, verdict) is None, (message_problem(number, verdict), verdict.message)
    return verdict


def wrong_verdict(number: int, body: str, folder: Path) -> Verdict:
    """把 body 当作 solve 的函数体写进 starter.py，返回它的判定。"""
    return verdict_of(number, wrong_file(number, body, folder))


def without_visible_checks(path: Path) -> Path:
    """把练习文件底部的可见检查整段关掉（if __name__ == "__main__": 换成 if False:），像学习者删掉了它们。"""
    source = path.read_text(encoding="utf-8")
    path.write_text(source.replace('if __name__ == "__main__":', "if False:"), encoding="utf-8")
    return path


def differential_catches(number: int, body: str, folder: Path) -> bool:
    """删掉底部的可见检查之后，错解也过不了：批改程序自己的两道关（源码规则与随机用例的差分检查）
    仍然判它不是“通过”。"""
    return not verdict_of(number, without_visible_checks(wrong_file(number, body, folder))).passed


def both_verdicts(number: int, body: str, folder: Path) -> tuple[Verdict, Verdict]:
    """(带着可见检查的判定, 删掉可见检查之后的判定)：错解库的每一条两种都要不是“通过”。"""
    with_checks = wrong_verdict(number, body, folder)
    return with_checks, verdict_of(number, without_visible_checks(wrong_file(number, body, folder)))


def assert_bank_entry_fails(number: int, name: str, body: str, folder: Path) -> None:
    """错解库的一条：带着与删掉可见检查，都得到“答案错误”或“崩溃”。"""
    for label, verdict in zip(("带着可见检查", "删掉可见检查"), both_verdicts(number, body, folder)):
        assert verdict.kind in {"wrong", "crashed"}, f"错解“{name}”{label}得到了“{verdict.label}”：{verdict.message}"
