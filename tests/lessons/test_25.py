"""第 25 课：参考答案就是 ./poet eval 的 distinct-2（metrics.distinct_n）；错误答案都过不了 ./poet check。"""

import importlib.util

import pytest
from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file, wrong_verdict

from courseware.catalogue import BY_NUMBER
from courseware.grading import reference
from poetry_gpt.data import load_poems
from poetry_gpt.metrics import DISTINCT_POEMS, distinct_n, human_poems, reader_report

LESSON = BY_NUMBER[25]


def load_solution():
    spec = importlib.util.spec_from_file_location("solution_25", LESSON.folder / "solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_LINES = """
    lines = []
    for text in texts:
        line = ""
        for ch in text:
            if ch in "，。？！":
                lines.append(line)
                line = ""
            else:
                line += ch
"""
BANK = {
    "跨过标点：整首正文连成一串再取组合": """
        grams = []
        for text in texts:
            body = "".join(ch for ch in text if ch not in "，。？！")
            grams += [body[i:i + n] for i in range(len(body) - n + 1)]
        return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "标点也算进组合（直接在全文上滑动）": """
        grams = [text[i:i + n] for text in texts for i in range(len(text) - n + 1)]
        return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "只认 ，。 两种句尾（？ 结尾的句子与下一句连在一起）": """
        grams = []
        for text in texts:
            line = ""
            for ch in text:
                if ch in "，。":
                    grams += [line[i:i + n] for i in range(len(line) - n + 1)]
                    line = ""
                else:
                    line += ch
        return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "每首诗各自去重再相加": """
        distinct, total = 0, 0
        for text in texts:
            grams, line = [], ""
            for ch in text:
                if ch in "，。？！":
                    grams += [line[i:i + n] for i in range(len(line) - n + 1)]
                    line = ""
                else:
                    line += ch
            distinct, total = distinct + len(set(grams)), total + len(grams)
        return distinct / total if total else 0.0
    """,
    "每首诗算一个比例，再取平均": """
        ratios = []
        for text in texts:
            grams, line = [], ""
            for ch in text:
                if ch in "，。？！":
                    grams += [line[i:i + n] for i in range(len(line) - n + 1)]
                    line = ""
                else:
                    line += ch
            if grams:
                ratios.append(len(set(grams)) / len(grams))
        return sum(ratios) / len(ratios) if ratios else 0.0
    """,
    "先把重复的诗去掉": _LINES.replace("for text in texts:", "for text in dict.fromkeys(texts):")
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "差一格：range(len(line) - n) 漏掉每句最后一个组合": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n)]
    return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "结尾没有标点的残段也算一句": """
        import re
        lines = [line for text in texts for line in re.split("[，。？！]", text) if line]
        grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
        return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "空列表时除以 0": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return len(set(grams)) / len(grams)
    """,
    "没有组合时返回 1.0（“没有重复”）": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 1.0
    """,
    "n 写死成 2": _LINES
    + """
    grams = [line[i:i + 2] for line in lines for i in range(len(line) - 1)]
    return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "分母用句子数 × (每句字数 − 1)，不管 n": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    total = sum(len(line) - 1 for line in lines)
    return len(set(grams)) / total if total > 0 else 0.0
    """,
    "原地把 texts 排序（结果对，输入被改了）": """
        texts.sort()
        grams = []
        for text in texts:
            line = ""
            for ch in text:
                if ch in "，。？！":
                    grams += [line[i:i + n] for i in range(len(line) - n + 1)]
                    line = ""
                else:
                    line += ch
        return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "捷径：直接调用课程包的 distinct_n": """
        from poetry_gpt.metrics import distinct_n
        return distinct_n(texts, n)
    """,
    "没有组合时返回整数 0": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0
    """,
    "全都不同时返回整数 1": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    if not grams:
        return 0.0
    if len(set(grams)) == len(grams):
        return 1
    return len(set(grams)) / len(grams)
    """,
    "用 Fraction 算，返回分数": _LINES
    + """
    from fractions import Fraction
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return Fraction(len(set(grams)), len(grams)) if grams else 0.0
    """,
    "四舍五入到两位小数": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return round(len(set(grams)) / len(grams), 2) if grams else 0.0
    """,
    "返回百分数": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return 100.0 * len(set(grams)) / len(grams) if grams else 0.0
    """,
    "句子在整组诗里去重之后再数组合": _LINES
    + """
    grams = [line[i:i + n] for line in dict.fromkeys(lines) for i in range(len(line) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0
    """,
    "只有空列表时才返回 0.0（有诗却没有组合时除以 0）": """
        if not texts:
            return 0.0
        grams = []
        for text in texts:
            line = ""
            for ch in text:
                if ch in "，。？！":
                    grams += [line[i:i + n] for i in range(len(line) - n + 1)]
                    line = ""
                else:
                    line += ch
        return len(set(grams)) / len(grams)
    """,
    "没有组合时 try 接住除以 0，返回 1.0": _LINES
    + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    if not texts:
        return 0.0
    try:
        return len(set(grams)) / len(grams)
    except ZeroDivisionError:
        return 1.0
    """,
    "只认 ，。？ 三种句尾（漏了 ！）": """
        grams = []
        for text in texts:
            line = ""
            for ch in text:
                if ch in "，。？":
                    grams += [line[i:i + n] for i in range(len(line) - n + 1)]
                    line = ""
                else:
                    line += ch
        return len(set(grams)) / len(grams) if grams else 0.0
    """,
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(25, name, BANK[name], tmp_path)


def test_an_int_where_a_float_is_due_says_so(tmp_path):
    path = without_visible_checks(wrong_file(25, BANK["没有组合时返回整数 0"], tmp_path))
    message = verdict_of(25, path).message
    assert "应返回 Python 的 float" in message and "不是整数 0" in message, message


def test_a_comment_naming_the_shortcut_is_not_refused(tmp_path):
    body = (
        "    # 不调用 poetry_gpt.metrics.distinct_n，自己数\n"
        + _LINES
        + """
    grams = [line[i:i + n] for line in lines for i in range(len(line) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0
    """
    )
    verdict = wrong_verdict(25, body, tmp_path)
    assert verdict.passed, verdict.message


def test_a_right_answer_with_re_compile_passes(tmp_path):
    """re.compile 是正则表达式的函数，不是内置的 compile：在有源码规则的课里照样可以用。"""
    body = """
    import re

    sentence = re.compile("([^，。？！]*)[，。？！]")  # 一句：不含标点的一段，后面紧跟句尾标点
    grams = [
        line[i : i + n] for text in texts for line in sentence.findall(text) for i in range(len(line) - n + 1)
    ]
    return len(set(grams)) / len(grams) if grams else 0.0
    """
    verdict = wrong_verdict(25, body, tmp_path)
    assert verdict.passed, verdict.message


def test_shortcut_is_refused_with_the_reason(tmp_path):
    assert "请不要用 poetry_gpt" in wrong_verdict(25, BANK["捷径：直接调用课程包的 distinct_n"], tmp_path).message


def test_cases_cover_the_edge_kinds():
    cases, expected = reference(LESSON, 25 * 1000 + 7)
    texts = [t for c, _ in cases for t in c]
    assert ([], 2) in [(c, n) for c, n in cases]  # 空列表
    assert any("？" in t[:-1] for t in texts)  # ？ 在两句之间
    assert any(t and t[-1] not in "，。？！" for t in texts)  # 截断的残段
    assert any(len(c) != len(set(c)) for c, _ in cases)  # 重复的诗
    assert {n for _, n in cases} >= {1, 2, 3, 6}
    assert any(texts and want == 0.0 for (texts, _), want in zip(cases, expected))  # 有诗、却一个组合也没有


def test_solution_is_the_package_distinct_n():
    """参考答案与 ./poet eval 用的 metrics.distinct_n 逐个相等：检查的用例、val 的人写诗、以及 reader_report 的那一行。"""
    solve = load_solution().solve
    cases, _ = reference(LESSON, 25 * 1000 + 7)
    for texts, n in cases:
        assert solve(texts, n) == distinct_n(texts, n)
    for form in (5, 7):
        poems = human_poems(form, 100)
        for n in (1, 2, 3):
            assert solve(poems, n) == distinct_n(poems, n)
        assert solve(poems[:DISTINCT_POEMS], 2) == reader_report(poems)["distinct_2"]
    val = [p["text"] for p in load_poems("val", 400)]
    assert solve(val, 2) == distinct_n(val, 2) < solve(val[:40], 2)  # 首数越多，distinct-2 越低


def test_solution_on_known_poems():
    solve = load_solution().solve
    tianya = "春日在天涯，天涯日又斜。莺啼如有泪，为湿最高花。"  # 李商隐《天涯》：“天涯”故意写了两遍
    assert solve([tianya], 2) == 15 / 16
    assert solve([tianya, tianya], 2) == 15 / 32
    assert solve(["千里隔烟波，孤舟宿何处？遥思耿不眠，淮南夜风雨。"], 2) == 1.0
    assert solve([tianya], 5) == 1.0 and solve([tianya], 6) == 0.0
