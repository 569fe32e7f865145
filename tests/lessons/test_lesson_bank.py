"""错解库（lesson_bank.py）：本进程里的判定与 ./poet check 判得一样；每一课的 test_NN.py 都有一份错解库。"""

import ast
from pathlib import Path

import pytest
from lesson_bank import verdict_of

from courseware.catalogue import CATALOGUE


def bank_names(path: Path) -> list[str]:
    """test_NN.py 里错解库 BANK 的各条名字（用 ast 读，不导入）：BANK = {...} 连同之后的 BANK.update({...})。"""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["BANK"]:
            names += [ast.literal_eval(k) for k in node.value.keys]
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "BANK.update"
        ):
            names += [ast.literal_eval(k) for k in node.value.args[0].keys]
    return names


def test_every_lesson_has_a_bank_of_at_least_five():
    written = [lesson for lesson in CATALOGUE if lesson.available]
    assert [lesson.number for lesson in written] == list(range(1, len(written) + 1))
    for lesson in written:
        names = bank_names(Path(__file__).with_name(f"test_{lesson.code}.py"))
        assert len(names) >= 5 and len(set(names)) == len(names), (lesson.code, names)


@pytest.mark.parametrize("lesson", [lesson for lesson in CATALOGUE if lesson.available], ids=lambda lesson: lesson.code)
def test_in_process_judge_passes_the_solution_and_not_the_starter(lesson):
    """错解库用的本进程判定与 ./poet check 判得一样：参考答案通过，起始代码“未完成”。"""
    assert verdict_of(lesson.number, lesson.folder / "solution.py").passed
    assert verdict_of(lesson.number, lesson.folder / "starter.py").kind == "not_implemented"
