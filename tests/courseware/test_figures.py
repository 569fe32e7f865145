"""课文里的数与代码：每篇课文的数都在记录下来的输出里，Python 代码块是原文或标明了简化。

这些检查不运行任何实验（只读记录），全部加起来一两秒；记录与实验现在的输出是否相同，由
tests/lessons/test_all_lessons.py 里 verify 跑实验时一并比较（test_output_matches_the_recording）。
"""

import pytest

from courseware.selfcheck.excerpts import SKETCH, check_excerpts, python_blocks
from courseware.selfcheck.figures import (
    Number,
    Source,
    check_text,
    config_for,
    figures_in,
    parse_number,
    poems_in,
    quoted_in,
    shown,
    text_files,
)
from courseware.selfcheck.record import body
from poetry_gpt.common import ROOT

TEXTS = text_files()


@pytest.mark.parametrize("path", TEXTS)
def test_every_figure_in_the_text_is_printed_by_a_recorded_run(path):
    report = check_text(path)
    assert not report.stale, "\n" + "\n".join(map(str, report.stale))
    if path.startswith("lessons/"):  # 每课都真的查了数（不是全部放行）
        assert report.checked > 0


@pytest.mark.parametrize("path", TEXTS)
def test_every_python_block_is_course_code_or_marked(path):
    report = check_excerpts(path)
    assert report.problems == (), "\n" + "\n".join(report.problems)


def test_recordings_say_where_they_come_from():
    for path in sorted(ROOT.glob("lessons/*/output.txt")):
        head = path.read_text(encoding="utf-8").splitlines()[:3]
        assert head[0].startswith("# 第 ") and "机器：" in head[1] and "⟨…⟩" in head[2], path
        assert body(path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize(
    "figure, printed, ok",
    [
        ("0.97", "0.9702", True),
        ("0.98", "0.9702", False),
        ("0.9702", "0.97", False),  # 课文的位数不能比输出多
        ("88.5%", "0.885", True),
        ("88.5%", "0.8849", True),
        ("88.6%", "0.885", False),
        ("0.783", "78.3%", True),
        ("−0.38", "-0.381", True),
        ("−0.38", "0.381", False),
        ("0.38", "-0.381", True),
        ("6,024", "6024", True),
        ("47117", "47117.2", True),
        ("1.5 × 10⁻⁸", "1.5e-08", True),
        ("0.922", "0.9225", True),
        ("0.920", "0.9225", False),
        ("2.5e-10", "2.5e-10", True),
        ("2.5e-10", "2.9e-10", False),
    ],
)
def test_a_figure_matches_a_printed_number_only_when_it_rounds_to_it(figure, printed, ok):
    assert parse_number(printed).rounds_to(parse_number(figure)) is ok


def test_which_numbers_in_a_text_are_figures():
    text = "\n".join(
        [
            "第 09 课有 16 首、48 步，8192 个参数，0.97，1.57%，2.0.1 版，fp32，distinct-2，`--steps 300`，6.0e-8，",
            "```python",
            "x = 0.125",
            "```",
            "```text",
            "图里 3.938",
            "```",
            "[链接](../19/README.md) 6,024 步 −0.38",
        ]
    )
    assert [f.number.written for f in figures_in(text)] == [
        "8192",
        "0.97",
        "1.57%",
        "6.0e-8",
        "3.938",
        "6,024",
        "−0.38",
    ]


def test_a_changed_figure_fails_with_the_line_and_the_printed_value():
    path = "lessons/09/README.md"
    text = (ROOT / path).read_text(encoding="utf-8")
    assert "（0.0233）" in text
    changed = text.replace("（0.0233）", "（0.0235）")
    line = next(n for n, l in enumerate(changed.splitlines(), start=1) if "（0.0235）" in l)
    stale = check_text(path, text=changed).stale
    assert [(s.path, s.line, s.figure) for s in stale] == [(path, line, "0.0235")]
    assert "最近的是 0.0233" in stale[0].message and "lessons/09/output.txt" in stale[0].message
    # 只差最后一位也是过期：容差只给重算的数（figures.agrees），课文写的就是记录里的数
    assert [s.figure for s in check_text(path, text=text.replace("（0.0233）", "（0.0234）")).stale] == ["0.0234"]
    assert check_text(path, text=text.replace("（0.0233）", "（0.023）")).stale == []  # 四舍五入到课文的位数也照旧认


def test_an_allowed_figure_that_changes_is_no_longer_allowed():
    path = "lessons/19/README.md"
    allowed = config_for(path).allow
    assert allowed, "第 19 课的放行列表是空的"
    entry = allowed[0]
    figure = figures_in(entry.text)[0].number.written
    text = (ROOT / path).read_text(encoding="utf-8")
    changed = text.replace(entry.text, entry.text.replace(figure, figure + "1", 1))
    problems = [str(s) for s in check_text(path, text=changed).stale]
    assert any(entry.text in p and "找不到" in p for p in problems), problems  # 放行失效
    assert any(figure + "1" in p for p in problems), problems  # 改过的数照样报


def test_a_poem_the_text_says_the_model_wrote_is_the_one_it_wrote():
    """第 26 课引的发布模型的诗，改一个字（实验印的是“为我作闲游”）就报出这一行与这首诗。"""
    path = "lessons/26/README.md"
    text = (ROOT / path).read_text(encoding="utf-8")
    assert "为我作闲游。" in text
    changed = text.replace("为我作闲游。", "为我作月游。")
    line = next(n for n, l in enumerate(changed.splitlines(), start=1) if "为我作月游" in l)
    stale = check_text(path, text=changed).stale
    assert [(s.path, s.line) for s in stale] == [(path, line)]
    assert "为我作月游" in stale[0].message and "lessons/26/output.txt" in stale[0].message
    assert check_text(path).checked > check_text(path, text=changed).checked


def test_which_poems_in_a_text_are_quotes():
    text = "\n".join(
        [
            "模型写出“月照孤星散，山光照石流。君来无处问，谁伴醉中游。”：成句了。",  # 引号里
            "月色照人衣，月中无一色。",  # 独占一行的一联
            "  seed 3 → 江南十里两重山，无复知时更少寒。",  # 前后没有别的汉字
            "**少放回一样，差在哪一步。** 不放回时……",  # 正文里的两个短句，不是引来的诗
            '条目是 `["春眠不覺曉，處處聞啼鳥。"]`。',  # 行内代码
            "“床前看月光……”只是半句",  # 不到两句
            "```python",
            'poem = "白日依山尽，黄河入海流。"',
            "```",
        ]
    )
    assert [(q.line, q.text) for q in poems_in(text)] == [
        (1, "月照孤星散，山光照石流。君来无处问，谁伴醉中游。"),
        (2, "月色照人衣，月中无一色。"),
        (3, "江南十里两重山，无复知时更少寒。"),
    ]


def test_a_quoted_poem_is_found_verse_by_verse_in_order():
    recording = "第1句：丹邱雨里看春回，第2句：密雾浓云拨不开。"
    assert quoted_in("丹邱雨里看春回，密雾浓云拨不开。", recording)
    assert not quoted_in("密雾浓云拨不开。丹邱雨里看春回，", recording)  # 次序不对
    assert not quoted_in("丹邱雨里看春回，密雾浓云拨不开。", "丹邱雨里看春回，" + "别的诗。" * 20 + "密雾浓云拨不开。")


def test_a_human_poem_is_allowed_only_where_the_config_says():
    path = "lessons/24/README.md"
    entry = next(a for a in config_for(path).allow if "白日依山尽" in a.text)
    text = (ROOT / path).read_text(encoding="utf-8")
    changed = text.replace(entry.text, entry.text.replace("更上", "再上"))
    problems = [str(s) for s in check_text(path, text=changed).stale]
    assert any("再上一层楼" in p for p in problems), problems  # 改过的诗照样报
    assert any(entry.text in p and "找不到" in p for p in problems), problems  # 放行失效


def test_a_block_marked_simplified_must_name_code_that_exists(tmp_path):
    from courseware.selfcheck import excerpts

    text = (
        "（简化自 poetry_gpt/model.py 的 NoSuchThing）\n```python\nx = 1\n```\n\n"
        "```python\ndef nothing_like_this():\n    return 42\n```\n\n"
        f"{SKETCH}\n```python\ny = 2\n```\n"
    )
    path = tmp_path / "README.md"
    path.write_text(text, encoding="utf-8")
    assert len(python_blocks(text)) == 3
    report = excerpts.check_excerpts(str(path))
    assert report.sketches == 1 and len(report.problems) == 2
    assert "没有 NoSuchThing" in report.problems[0] and "不是课程代码的原文" in report.problems[1]


def test_shown_writes_a_candidate_like_the_text():
    assert (
        shown(parse_number("0.9225"), parse_number("0.920")) == "0.922"
    )  # 四舍五入的边上按十进制：0.9225 → 0.922 或 0.923 都对得上
    assert shown(parse_number("0.8849"), parse_number("88.5%")) == "88.5%"
    assert shown(parse_number("6024"), parse_number("7,535")) == "6,024"
    assert shown(parse_number("2.9e-10"), parse_number("2.5e-10")) == "2.9e-10"
    assert isinstance(Source.read("lessons/09/output.txt").numbers[0][0], Number)


def test_outputs_compare_with_the_stated_tolerance():
    from courseware.selfcheck.figures import same_line

    # 1 个与 2 个线程时第 07 课印的困惑度（见 figures.RELATIVE）
    assert same_line("│ 一元：只看字频 │ 6.5639 │ 709.0126 │", "│  一元：只看字频 │  6.5639 │ 709.0129 │")
    assert same_line("相似度：0.0233", "相似度：0.0234")  # 四舍五入的边上差最后一位
    assert not same_line("相似度：0.0233", "相似度：0.0236")
    assert not same_line("损失：3.9245", "损失：3.92")  # 位数变了
    assert not same_line("第 1 名：见", "第 1 名：闻")
    assert same_line("用时：⟨⟩ 秒", "用时：⟨⟩ 秒")
    assert not same_line("格子数：6671", "格子数：6672")  # 整数是计数：一点不差
    assert not same_line("最大相差：不到 1e-6", "最大相差：8.6e-08（超过了 1e-6）")  # 界：超了就不同


@pytest.mark.parametrize(
    "recorded, now, ok",
    [
        ("7.17275", "7.17274", True),  # 第 18 课的损失：Intel Xeon 与 AMD EPYC
        ("7.17275", "7.17264", False),  # 相对差 1.5e-5
        ("0.0233", "0.0234", True),
        ("0.0233", "0.0235", False),
        ("709.0126", "709.0129", True),  # 相对 4e-7
        ("3.44e-06", "3.45e-06", True),
        ("3.44e-06", "3.46e-06", False),
        ("7.5e-08", "8.6e-08", False),  # 舍入噪声：这种数要印成界，不能靠容差
        ("78.3%", "78.4%", True),
        ("50%", "51%", False),
        ("6672", "6673", False),
        ("7.1727", "7.17274", False),  # 位数不同
    ],
)
def test_a_recomputed_number_agrees_within_the_printed_precision(recorded, now, ok):
    from courseware.selfcheck.figures import agrees

    assert agrees(recorded, now) is ok


def test_contains_finds_the_sentence_with_numbers_that_agree():
    from courseware.selfcheck.figures import contains

    step = "第 10 步起就岔开（7.17915，不中断是 7.17274），第 16 步 6.97675。"
    assert contains(step, "第 10 步起就岔开（7.17915，不中断是 7.17275）")
    assert not contains(step, "第 10 步起就岔开（7.17915，不中断是 7.17295）")
    assert not contains(step, "第 11 步起就岔开（7.17915，不中断是 7.17275）")  # 整数不差
    assert not contains(step, "第 10 步就岔开（7.17915，不中断是 7.17275）")  # 字不差
    assert not contains("损失 17.17274", "损失 7.17274") and not contains("损失 7.172741", "损失 7.17274")


def test_recordings_are_of_the_shipped_model():
    """换了 data/model.pt 却没有重新记录，这里就失败：记录里写着它们来自哪个存档（sha256）。
    训练日志的记录就是现在从存档里读出来的样子；./poet eval 的三份记录要跑几分钟，只比 sha256。"""
    import json

    from courseware.selfcheck.record import MODEL_LOG, RECORDS, model_log_text, model_sha256

    now = model_sha256()
    assert MODEL_LOG.read_text(encoding="utf-8") == model_log_text()
    for name in ("eval.json", "eval-plain.json", "eval-drafts.json"):
        assert json.loads((RECORDS / name).read_text(encoding="utf-8"))["model_sha256"] == now, name


@pytest.mark.parametrize(
    "path, written, changed, figure",
    [
        ("lessons/15/README.md", "概率 0.0083，损失 4.79", "概率 0.0084，损失 4.79", "0.0084"),
        ("lessons/25/README.md", "占 0.0157", "占 0.0158", "0.0158"),
        ("lessons/16/README.md", "7.6063 | 7.1744", "7.6064 | 7.1744", "7.6064"),
    ],
)
def test_a_text_figure_one_off_in_the_last_digit_is_stale(path, written, changed, figure):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert text.count(written) == 1
    assert [s.figure for s in check_text(path, text=text.replace(written, changed)).stale] == [figure]
