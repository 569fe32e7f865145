"""老师手册 docs/teaching.md：每课的捷径规则由 check.py 生成；选项、判定与报告的列都写到了。"""

import json

import pytest

from courseware.catalogue import BY_NUMBER, CATALOGUE
from courseware.grading import VERDICTS, Limits, Verdict
from courseware.grading.classroom import Roster
from courseware.grading.gradebook import MISSING, NOT_GRADED, PARTIAL, RATE_ROWS, report_csv, report_json
from courseware.grading.sandbox import Machine
from courseware.selfcheck.names import _commands
from courseware.selfcheck.teaching import (
    BEGIN,
    END,
    GUIDE,
    GuideError,
    guide_problem,
    guide_text,
    lesson_rules,
    rules_section,
)

TEXT = GUIDE.read_text(encoding="utf-8")


def test_the_shortcut_rules_are_generated_from_check_py():
    assert guide_problem() is None, guide_problem()
    assert guide_text(TEXT) == TEXT


def test_a_stale_guide_is_reported(tmp_path):
    stale = tmp_path / "teaching.md"
    stale.write_text(TEXT.replace("`gelu`、", ""), encoding="utf-8")
    assert "./poet verify --docs" in guide_problem(stale)
    assert "读不出" in guide_problem(tmp_path / "missing.md")


def test_every_lesson_with_rules_has_its_section():
    section = rules_section()
    for lesson in CATALOGUE:
        heading = f"**第 {lesson.code} 课 · {lesson.title}**"
        assert (heading in section) == bool(lesson_rules(lesson)), lesson.code
    lesson12 = section.split(f"**第 12 课 · {BY_NUMBER[12].title}**")[1].split("**第 13 课")[0]
    assert "`gelu`" in lesson12 and "`linear`" in lesson12  # 手抄的那一份漏掉过这一课
    assert "`nn`" in section.split("**第 26 课")[1]  # FORBIDDEN_NAMES
    assert "weights_only=True" in section.split("**第 18 课")[1]  # source_problem 的说明
    assert "`aten::_log_softmax`" in section.split("**第 15 课")[1].split("**第 16 课")[0]  # TRIPWIRES


def test_a_guide_without_the_markers_is_refused():
    with pytest.raises(GuideError, match="verify --docs"):
        guide_text(TEXT.replace(BEGIN, ""))
    with pytest.raises(GuideError):  # 次序反了
        guide_text(END + "\n" + TEXT.replace(END, ""))


def test_every_grade_option_is_in_the_guide():
    options = {o for o in _commands()["grade"] if o.startswith("--") and o != "--help"}
    assert options and all(f"`{o}" in TEXT for o in options), sorted(o for o in options if f"`{o}" not in TEXT)


def test_every_verdict_label_and_report_column_is_in_the_guide():
    labels = [*VERDICTS.values(), MISSING, NOT_GRADED, PARTIAL, *RATE_ROWS]
    assert [x for x in labels if x not in TEXT] == []
    lesson = BY_NUMBER[9]
    results = {("甲", "09"): Verdict("wrong", "答案错误：第 1 个用例")}
    head = report_csv(["甲"], [lesson], results, seed=1, graded_at="t").splitlines()
    columns = head[0].split(",")
    assert columns[1] == f"第09课 {lesson.title}" and columns[2] == "第09课原因"
    assert "“第NN课 标题”" in TEXT and "“第NN课原因”" in TEXT
    assert all(f"“{c}”" in TEXT for c in (columns[0], columns[-1], "随机用例的种子", "批改时间"))
    report = json.loads(
        report_json(
            GUIDE.parent,
            Roster(learners=["甲"]),
            [lesson],
            results,
            Limits(),
            Machine(None, True, 65534, "none"),
            1,
            1.0,
        )
    )
    keys = set(report) | set(report["verdicts"][0])
    assert [k for k in sorted(keys) if f"`{k}`" not in TEXT] == []
