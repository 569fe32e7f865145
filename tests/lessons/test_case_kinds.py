"""每一课的随机用例覆盖课文点到的每一种情形（check.py 的 KINDS），换了种子也一样；
参考答案在 solve 里加上写着不许用的名字的注释照样通过（注释不是代码，可见检查与源码规则都读语法树）。"""

import ast

import pytest
from lesson_bank import verdict_of

from courseware.catalogue import CATALOGUE
from courseware.grading import default_seed, lesson_check, rule_problem, uncovered_kinds
from courseware.selfcheck.starters import NAMES_IN_SOLVE

AVAILABLE = [lesson for lesson in CATALOGUE if lesson.available]


@pytest.mark.parametrize("lesson", AVAILABLE, ids=lambda lesson: lesson.code)
def test_random_cases_cover_every_kind_the_text_names(lesson):
    """./poet check 的固定种子与 ./poet grade 的两个别的种子：每一种都至少有一个用例。"""
    assert len(lesson_check(lesson).KINDS) >= 3
    for seed in (default_seed(lesson), 1, 2):
        assert uncovered_kinds(lesson, seed) == [], (lesson.code, seed)


def _forbidden(lesson) -> list[str]:
    check = lesson_check(lesson)
    return [*getattr(check, "FORBIDDEN", {}), *getattr(check, "FORBIDDEN_NAMES", {})]


@pytest.mark.parametrize(
    "lesson", [lesson for lesson in AVAILABLE if _forbidden(lesson)], ids=lambda lesson: lesson.code
)
def test_comments_naming_the_shortcuts_do_not_fail_a_right_answer(lesson, tmp_path):
    """参考答案的 solve 里加一行注释、一句单独的字符串，写出本课不许用的每个名字：仍然通过。"""
    source = (lesson.folder / "solution.py").read_text(encoding="utf-8")
    solve = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "solve")
    first = solve.body[1]  # 文档字符串之后的第一句
    names = "、".join(_forbidden(lesson))
    lines = source.splitlines(keepends=True)
    indent = " " * first.col_offset
    note = f"{indent}# 不用 {names}：本课要亲手写\n{indent}'不用 {names}'\n"  # 注释与单独一句的字符串都不算代码
    path = tmp_path / "commented.py"
    path.write_text("".join(lines[: first.lineno - 1]) + note + "".join(lines[first.lineno - 1 :]), encoding="utf-8")
    verdict = verdict_of(lesson.number, path)
    assert verdict.passed, verdict.message


@pytest.mark.parametrize(
    "lesson", [lesson for lesson in AVAILABLE if _forbidden(lesson)], ids=lambda lesson: lesson.code
)
def test_an_older_visible_check_naming_the_shortcuts_is_not_judged(lesson):
    """底部换成旧版起始文件那样的可见检查（在 solve 的源码文本里找每个不许用的名字，名字写在字符串里）：
    源码规则不查那一段（差分检查时它不运行），参考答案仍然合规。"""
    source = (lesson.folder / "solution.py").read_text(encoding="utf-8")
    older = 'if __name__ == "__main__":\n    import inspect\n\n    body = inspect.getsource(solve)\n'
    older += "".join(f"    assert {name!r} not in body\n" for name in _forbidden(lesson))
    assert rule_problem(lesson, source[: source.index('if __name__ == "__main__":')] + older) is None


def test_visible_checks_read_the_names_in_solve_from_its_syntax_tree():
    """可见检查查 solve 的代码时，都用 starters.NAMES_IN_SOLVE 那两行读语法树，没有在源码文本里找字。"""
    looking = []
    for lesson in AVAILABLE:
        text = (lesson.folder / "solution.py").read_text(encoding="utf-8")
        checks = text[text.index('if __name__ == "__main__":') :]
        assert "getsource(solve).split" not in checks and " not in body" not in checks, lesson.code
        if "getsource" in checks:
            assert NAMES_IN_SOLVE in checks, lesson.code
            looking.append(lesson.code)
    assert looking == ["01", "08", "12", "13"]
