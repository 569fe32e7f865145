"""课表 lessons/manifest.toml：读出来的课表完整、连续；写错的课表给出中文错误。"""

import re

import pytest

from courseware import catalogue
from courseware.catalogue import BY_NUMBER, CATALOGUE, SECTIONS, ManifestError, load_manifest, parse_lesson
from poetry_gpt.common import ROOT


def test_manifest_lists_every_lesson_once_in_order():
    assert [l.number for l in CATALOGUE] == list(range(1, len(CATALOGUE) + 1))
    assert len(CATALOGUE) >= 14 and set(BY_NUMBER) == {l.number for l in CATALOGUE}
    assert list(SECTIONS) == sorted({l.section for l in CATALOGUE})
    for lesson in CATALOGUE:
        assert lesson.title and lesson.goal and lesson.exercise and len(lesson.hint) >= 20, lesson.code
    assert BY_NUMBER[9].title == "让模型知道字的先后" and BY_NUMBER[9].section_title == "03 GPT 的内部"
    assert "广播" in BY_NUMBER[9].hint


def test_parse_lesson_uses_the_manifest_count():
    last = CATALOGUE[-1]
    assert parse_lesson(f"lesson-{last.code}", require_available=False) is last
    with pytest.raises(catalogue.LessonNumberError, match=f"1 到 {len(CATALOGUE)}"):
        parse_lesson(str(last.number + 1))


GOOD = """format = 1
[[section]]
code = "01"
title = "起步"
[[lesson]]
number = 1
section = "01"
title = "t"
goal = "g"
exercise = "e"
hint = "h"
"""


@pytest.mark.parametrize(
    "text, message",
    [
        (GOOD.replace("format = 1", "format = 2"), "format"),
        (GOOD.replace('hint = "h"\n', ""), "hint"),
        (GOOD.replace("number = 1", "number = 2"), "连续"),
        (GOOD.replace('section = "01"', 'section = "09"'), "section"),
        (GOOD + 'colour = "red"\n', "colour"),
        (GOOD + "more = 3\n", "more"),
        (GOOD + 'kernel_sensitive = "yes"\n', "kernel_sensitive"),
        (GOOD + "chart = 1\n", "chart"),
        (GOOD + 'chart = "../grading"\n', "模块的名字"),
        (GOOD.replace("[[lesson]]", "[[lesson]"), "读不了"),
        ("format = 1\n", "一课也没有"),
    ],
)
def test_broken_manifests_raise_in_chinese(tmp_path, text, message):
    path = tmp_path / "manifest.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError, match=message):
        load_manifest(path)


def test_a_good_manifest_round_trips(tmp_path):
    path = tmp_path / "manifest.toml"
    path.write_text(GOOD, encoding="utf-8")
    sections, lessons = load_manifest(path)
    assert sections == {"01": "起步"}
    assert [(l.number, l.title, l.hint, l.code) for l in lessons] == [(1, "t", "h", "01")]


def test_per_lesson_facts_come_from_the_manifest(tmp_path):
    """网页的图与内核测试的课都写在课表里：不写时没有图、不在内核测试里；写错的 chart 由画图的一侧用中文说出来。"""
    from dataclasses import replace

    from courseware.site.charts import chart_drawer
    from courseware.site.charts.attention import lesson10

    path = tmp_path / "manifest.toml"
    path.write_text(GOOD, encoding="utf-8")
    (plain,) = load_manifest(path)[1]
    assert (plain.chart, plain.kernel_sensitive) == ("", False) and chart_drawer(plain) is None
    assert chart_drawer(BY_NUMBER[10]) is lesson10
    assert all(chart_drawer(lesson) for lesson in CATALOGUE if lesson.available)
    assert [l.number for l in CATALOGUE if l.kernel_sensitive] == [7, 13, 15, 17, 18]
    with pytest.raises(ManifestError, match="没有这个模块"):
        chart_drawer(replace(BY_NUMBER[10], chart="nowhere"))
    with pytest.raises(ManifestError, match="没有 lesson10"):
        chart_drawer(replace(BY_NUMBER[10], chart="scores"))


def test_the_readme_map_agrees_with_the_manifest():
    """README 的课程地图：每一节一行，列出这一节的每一课“NN 标题”，与课表相同。"""
    from poetry_gpt.common import ROOT

    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip()
        for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| 0") and line.count("|") == 3
    }
    for key, name in SECTIONS.items():
        want = " · ".join(f"{l.code} {l.title}" for l in CATALOGUE if l.section == key)
        assert rows.get(f"{key} {name}") == want, key


def test_more_is_optional_and_multi_line_hints_are_trimmed(tmp_path):
    """more 可有可无；写成多行字符串的 hint、more 去掉首尾的换行。课表里的课（第 24 课另议）都是“点拨 + 完整的做法”。"""
    path = tmp_path / "manifest.toml"
    path.write_text(
        GOOD.replace('hint = "h"', 'hint = """\n先看哪里\n"""\nmore = """\n完整的做法\n"""'), encoding="utf-8"
    )
    (lesson,) = load_manifest(path)[1]
    assert (lesson.hint, lesson.more) == ("先看哪里", "完整的做法")
    path.write_text(GOOD, encoding="utf-8")
    assert load_manifest(path)[1][0].more == ""
    for lesson in CATALOGUE:
        if lesson.number == 24:
            continue
        n = lesson.number
        assert lesson.more and len(lesson.more) > len(lesson.hint), n


def test_hints_are_written_as_multi_line_strings():
    """hint 与 more 都写成三引号的多行字符串：长的点拨在课表里好读、好改，也不用转义引号。"""
    text = (ROOT / "lessons" / "manifest.toml").read_text(encoding="utf-8")
    single = re.findall(r'^(?:hint|more) = "(?!"").*$', text, re.M)
    assert not single and len(re.findall(r'^hint = """$', text, re.M)) == 26
