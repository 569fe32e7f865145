"""课文的文风：中文段落不硬换行，不用已知的近义词代替术语表里的词，术语表的每一条都链到用它的课。

这些毛病在 ./poet lesson N --read 和网站上都看得见：硬换行变成句中多余的空格，
同一个概念换个名字，学习者会以为是两样东西。
"""

import re

import pytest

from courseware.catalogue import CATALOGUE, LESSONS_DIR

READMES = sorted(LESSONS_DIR.glob("[0-9][0-9]/README.md"))
GLOSSARY = LESSONS_DIR / "GLOSSARY.md"
HANZI = re.compile(r"[\u4e00-\u9fff]")
# 另起一块的行：列表项、表格、标题、代码块、HTML、引用
NEW_BLOCK = re.compile(r"^\s*([-*+] |\d+\. |\||#|```|<|>)")

# 已知的近义词 → 术语表里的词。课文里出现左边的写法就算错。
STRAY = {
    "主干": "残差流",
    "词表": "汉字表",
    "词汇表": "汉字表",
    "词向量": "字向量",
    "嵌入表": "字向量表",
    "上下文长度": "前文长度",
    "位置编码": "位置表",
    "注意力得分": "注意力分数",
    "独热编码": "one-hot 向量",
}
# 一句话里出现这些词，说的就是注意力；这时的“分数”必须写全“注意力分数”（“分数”单独用时指输出层的 logits）
ATTENTION_WORDS = ("注意力", "q·k", "q、k", "√d", "√(C/H)", "√32", "√16", "遮挡", "头")


def prose(path):
    """(行号, 行) ：代码块以外的行。"""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def code_free(line):
    """去掉行内代码，只留文字。"""
    return re.sub(r"`[^`]*`", "", line)


@pytest.mark.parametrize("path", READMES, ids=[p.parent.name for p in READMES])
def test_no_hard_wraps_inside_chinese_paragraphs(path):
    lines = list(prose(path))
    wrapped = [
        number
        for (number, line), (next_number, following) in zip(lines, lines[1:])
        if next_number == number + 1
        and line.strip()
        and following.strip()
        and HANZI.search(line)
        and not line.lstrip().startswith(("|", "#"))
        and not NEW_BLOCK.match(following)
    ]
    assert not wrapped, f"{path.parent.name}/README.md 第 {wrapped} 行在段落中间换了行：把下一行接上来"


@pytest.mark.parametrize("path", READMES, ids=[p.parent.name for p in READMES])
def test_no_stray_synonyms(path):
    found = [
        (number, word, right)
        for number, line in prose(path)
        for word, right in STRAY.items()
        if word in code_free(line)
    ]
    assert not found, "课文用了术语表以外的说法：" + "；".join(f"第 {n} 行“{w}”应为“{r}”" for n, w, r in found)


@pytest.mark.parametrize("path", READMES, ids=[p.parent.name for p in READMES])
def test_attention_scores_are_named_in_full(path):
    bare = []
    for number, line in prose(path):
        for sentence in re.split(r"[。；！？\n]", code_free(line)):
            rest = sentence.replace("注意力分数", "")
            if (
                "分数" in rest
                and "logits" not in sentence
                and "输出层" not in sentence
                and any(word in sentence for word in ATTENTION_WORDS)
            ):
                bare.append(number)
    assert not bare, f"{path.parent.name}/README.md 第 {sorted(set(bare))} 行：注意力里的分数要写全“注意力分数”"


def glossary_rows():
    """(中文, 英文名, 课号)：术语表的每一行。"""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # “首次出现”一栏：[第 NN 课](NN/README.md)，还没写好链接的新词也认“第 NN 课”
        if len(cells) == 4 and (m := re.search(r"第 (\d\d) 课", cells[3])):
            rows.append((cells[0], cells[1], m.group(1)))
    return rows


def test_glossary_entries_link_to_a_lesson_that_uses_them():
    rows = glossary_rows()
    assert len(rows) >= 60
    written = {lesson.code for lesson in CATALOGUE if lesson.available}
    problems = []
    for chinese, english, code in rows:
        if code not in written:  # 还没写好的课：等它写好再查
            continue
        text = (LESSONS_DIR / code / "README.md").read_text(encoding="utf-8")
        names = [n for n in re.split(r"、|，", chinese)]
        names += [n.strip(" `（）") for n in re.split(r" / |、|（|）", english)]
        if not any(n and n in text for n in names):
            problems.append(f"“{chinese}”链到第 {code} 课，可那一课没有用这个词")
    assert not problems, "\n".join(problems)


def test_glossary_has_one_row_per_term():
    terms = [chinese for chinese, _, _ in glossary_rows()]
    assert len(terms) == len(set(terms)), [t for t in terms if terms.count(t) > 1]


# 第 15–26 课：一段最多 600 个字符，和 01–10 课的密度相近；代码块与表格不算段落
MAX_PARAGRAPH = 600
LATER = [p for p in READMES if 15 <= int(p.parent.name) <= 26]


def long_paragraphs(text, limit=MAX_PARAGRAPH):
    """[(起始行号, 字符数)]：超过 limit 个字符的段落（含列表项里的段落）。表格的格子不在 paragraph 里，代码块没有 inline。"""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    return [
        (opening.map[0] + 1, len(inline.content))
        for opening, inline in zip(tokens, tokens[1:])
        if opening.type == "paragraph_open" and len(inline.content) > limit
    ]


@pytest.mark.parametrize("path", LATER, ids=[p.parent.name for p in LATER])
def test_no_paragraph_longer_than_600_characters(path):
    long = long_paragraphs(path.read_text(encoding="utf-8"))
    assert not long, (
        f"{path.parent.name}/README.md 有超过 {MAX_PARAGRAPH} 个字符的段落（行号, 字符数）：{long}；拆成两段，意思不变"
    )


def test_the_paragraph_rule_sees_long_paragraphs_and_skips_code_and_tables():
    text = (
        "短的一段。\n\n" + "字" * 601 + "\n\n- " + "句" * 650 + "\n\n```python\n" + "x = 1\n" * 200 + "```\n\n"
        "| a |\n|---|\n| " + "字" * 700 + " |\n"
    )
    assert long_paragraphs(text) == [(3, 601), (5, 650)]
    assert long_paragraphs("字" * 600) == []
