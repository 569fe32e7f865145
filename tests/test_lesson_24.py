"""第 24 课：参考答案与 prosody.quatrain_rhyme 一致；名诗的平仄与押韵有已知答案；诗律解码与课文说的一样；
错误答案都过不了 ./poet check。"""
import importlib.util

import pytest

from poetry_gpt import prosody
from poetry_gpt.courseware.catalogue import BY_NUMBER
from poetry_gpt.data import default_tokenizer, load_poems
from poetry_gpt.generate import Constraint
from poetry_gpt.prosody import BOTH, PING, ZE
from poetry_gpt.verse_rules import VERSE, Rules

from lesson_bank import differential_catches, wrong_verdict

TOK = default_tokenizer()
TABLE = prosody.load_table()

SHAN_XING = "远上寒山石径斜，白云生处有人家。停车坐爱枫林晚，霜叶红于二月花。"
CHUN_XIAO = "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。"
QIU_PU = "白发三千丈，缘愁似个长。不知明镜里，何处得秋霜。"
QING_PING = "名花倾国两相欢，长得君王带笑看。解释春风无限恨，沉香亭北倚阑干。"
WANG_ZHAO_JUN = "汉使却回凭寄语，黄金何日赎蛾眉？君王若问妾颜色，莫道不如宫里时。"
HUI_XIANG = "少小离家老大回，乡音难改鬓毛衰。儿童相见不相识，笑问客从何处来。"


def load_solution():
    path = BY_NUMBER[24].folder / "solution.py"
    spec = importlib.util.spec_from_file_location("solution_24", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table_slice(text):
    return {ch: list(TABLE[ch]["groups"]) for ch in dict.fromkeys(text) if ch in TABLE}


# ---------- 名诗的已知答案（课文第 2、3 段） ----------

@pytest.mark.parametrize("poem, ends, groups, first_line, level", [
    (SHAN_XING, "斜家晚花", ("下平声六麻",), True, PING),
    (CHUN_XIAO, "晓鸟声少", ("上声十七筱",), True, ZE),                      # 仄韵也是韵
    (QIU_PU, "丈长里霜", ("下平声七阳",), False, PING),                       # 丈与长同在养，却不在共同韵部里
    (QING_PING, "欢看恨干", ("上平声十四寒", "去声十五翰"), True, BOTH),     # 看、干共有两个韵部
    (WANG_ZHAO_JUN, "语眉色时", ("上平声四支",), False, PING),               # 第二句以 ？ 结尾
])
def test_famous_poems_rhyme_as_the_lesson_says(poem, ends, groups, first_line, level):
    r = prosody.quatrain_rhyme(poem)
    assert r.endings == tuple(ends)
    assert (r.groups, r.rhymes, r.first_line, r.level) == (groups, True, first_line, level)


def test_hui_xiang_ou_shu_does_not_rhyme_by_the_table_and_qiu_pu_first_line_shares_only_with_line_two():
    r = prosody.quatrain_rhyme(HUI_XIANG)
    assert prosody.rhyme_groups("衰") == ("上平声四支",) and prosody.rhyme_groups("来") == ("上平声十灰",)
    assert (r.rhymes, r.groups, r.first_line) == (False, (), False)
    assert prosody.share_rhyme("丈", "长") and not prosody.share_rhyme("丈", "霜")


def test_shan_xing_tones_character_by_character():
    strict = prosody.tone_report(SHAN_XING)
    assert strict.template == "七绝·仄起首句入韵"
    assert (strict.matched, strict.checked) == (25, 28)
    wrong = [(line, i) for line, marks in enumerate(strict.marks) for i, m in enumerate(marks) if m == prosody.MISMATCH]
    assert wrong == [(1, 0), (1, 2), (3, 0)]                         # 都在第一、三字上
    assert prosody.tone_report(SHAN_XING, lenient=True).score == 1.0
    assert all(link.ok for link in prosody.nian_dui(SHAN_XING))
    tones = "".join(prosody.tone_class(ch) for ch in "石白叶月")
    assert tones == ZE * 4


def test_entering_tone_is_ze_and_polyphonic_characters_are_in_several_groups():
    for ch in "白国石一十竹独月叶色落夕":  # 入声：前七个今天读平声，后五个读去声；平水韵里都是仄
        assert prosody.tone_class(ch) == ZE and all(g.startswith("入声") for g in prosody.rhyme_groups(ch)), ch
    assert prosody.rhyme_groups("看") == ("上平声十四寒", "去声十五翰")
    assert prosody.rhyme_groups("长") == ("下平声七阳", "上声二十二养", "去声二十三漾")
    assert prosody.rhyme_groups("行") == ("下平声七阳", "下平声八庚", "去声二十三漾", "去声二十四敬")
    assert all(prosody.tone_class(ch) == BOTH for ch in "看长行")
    assert prosody.rhyme_groups("啼") == ("上平声八齐",)  # 韵表的来源漏了它，建表时补上（PINGSHUI_ERRATA）
    assert prosody.tone_class("碗") == prosody.UNKNOWN and "碗" not in TABLE  # 表里没有：不猜
    assert prosody.rhyme_groups("吾") == ("上平声七虞", "下平声六麻") and prosody.tone_class("吾") == PING


def test_rare_readings_in_the_table_and_exercise_one():
    # 表里祖也在麻韵，语料里它作韵脚却只按麌韵押（课文“表说了算，表也有表的毛病”）
    assert "下平声六麻" in TABLE["祖"]["groups"] and TABLE["祖"]["rhymes"] == {"上声七麌": 10}
    # 小练习 1：《登鹳雀楼》押尤韵，首句“尽”是仄声，不入韵；白日入欲目一都是入声
    r = prosody.quatrain_rhyme("白日依山尽，黄河入海流。欲穷千里目，更上一层楼。")
    assert (r.groups, r.first_line) == (("下平声十一尤",), False)
    assert prosody.rhyme_groups("尽") == ("上声十一轸",)
    assert all(prosody.rhyme_groups(ch)[0].startswith("入声") for ch in "白日入欲目一")


# ---------- 诗律解码用同样的规则（课文第 5 段与小练习 2） ----------

def constraint_after(text, rules):
    c = Constraint(TOK, (text.index("，")), rules=rules)
    for ch in text:
        c.advance(TOK.stoi[ch])
    return c


def allowed(c):
    return [TOK.tokens[i] for i in c.allowed().nonzero().flatten().tolist()]


def test_every_character_the_decoder_allows_at_the_rhyme_slot_makes_the_poem_rhyme():
    c = constraint_after(SHAN_XING[:-2], VERSE)
    chars = allowed(c)
    assert len(chars) == 101 and "花" in chars and not {"斜", "家"} & set(chars)
    for ch in chars:
        r = prosody.quatrain_rhyme(SHAN_XING[:-2] + ch + "。")
        assert r.rhymes and "下平声六麻" in r.groups and r.first_line, ch


def test_first_line_in_rhyme_then_line_two_narrows_the_groups():
    # 欢只在寒：首句入韵，第二句的看（寒、翰）把韵收成寒；第四句只许寒韵的字，平仄开不开都一样
    for tones in ("lenient", "off"):
        chars = allowed(constraint_after(QING_PING[:-2], Rules(tones=tones)))
        assert chars and all("上平声十四寒" in prosody.rhyme_groups(ch) for ch in chars), tones
        assert "岸" not in chars  # 岸只在翰
    # 首句以仄声字收尾（不入韵）：看定下寒、翰；论平仄时只留平声的寒，不论时翰韵的字也行
    text = "名花倾国两相恨，长得君王带笑看。解释春风无限恨，沉香亭北倚阑干。"
    assert "岸" not in allowed(constraint_after(text[:-2], Rules(tones="lenient")))
    assert "岸" in allowed(constraint_after(text[:-2], Rules(tones="off")))


def test_a_two_reading_first_line_end_is_not_taken_as_first_line_in_rhyme():
    # 课文“深入一步”的例子：乡（阳、漾）两读，解码器不把它当首句入韵，第二句的醒自己定韵（青）
    c = constraint_after("春早归时又醉乡，未能更著酒还醒。江城此日人非主，自是今年一梦", VERSE)
    rhyme = [g for g, on in zip(prosody.GROUPS, c.verse.rhyme.tolist()) if on]
    assert rhyme == ["下平声九青"] and "青" in allowed(c) and "长" not in allowed(c)


# ---------- 参考答案与包里的函数 ----------

def test_solution_matches_quatrain_rhyme_on_every_val_poem():
    solve = load_solution().solve
    poems = [p["text"] for p in load_poems("val")]
    assert len(poems) == 4924
    for text in poems:
        r = prosody.quatrain_rhyme(text)
        assert solve(text, table_slice(text)) == (list(r.groups), r.first_line), text


def test_solution_reads_only_the_table_it_is_given():
    solve = load_solution().solve
    groups = table_slice(SHAN_XING)
    assert solve(SHAN_XING, groups) == (["下平声六麻"], True)
    del groups["斜"]
    assert solve(SHAN_XING, groups) == (["下平声六麻"], False)
    groups["花"] = ["上声十三阮"]  # 换一张表，结论跟着表走
    assert solve(SHAN_XING, groups) == ([], False)


# ---------- 错误答案 ----------

_SPLIT = """
    lines, line = [], ""
    for ch in poem:
        if ch in "，。？！":
            lines.append(line)
            line = ""
        else:
            line += ch
"""
WRONG_24 = {
    "只比第一个韵部": _SPLIT + """
    first, second, fourth = (groups.get(lines[i][-1], [None])[0] for i in (0, 1, 3))
    shared = [second] if second is not None and second == fourth else []
    return shared, bool(shared) and first == second
    """,
    "只认 ，。 是句尾（？ 结尾的句子没切开）": """
    import re
    lines = re.split("[，。]", poem)
    first, second, fourth = (groups.get(lines[i][-1], []) for i in (0, 1, 3))
    shared = [g for g in second if g in fourth]
    return shared, any(g in shared for g in first)
    """,
    "按 。 切成两联（？ 结尾的一联没切开）": """
    couplets = poem.split("。")
    first = groups.get(couplets[0].split("，")[0][-1], [])
    second, fourth = groups.get(couplets[0][-1], []), groups.get(couplets[1][-1], [])
    shared = [g for g in second if g in fourth]
    return shared, any(g in shared for g in first)
    """,
    "首句只与第二句比": _SPLIT + """
    first, second, _, fourth = (groups.get(l[-1], []) for l in lines)
    shared = [g for g in second if g in fourth]
    return shared, any(g in second for g in first)
    """,
    "拿第一、三句当押韵的两句": _SPLIT + """
    first, _, third, fourth = (groups.get(l[-1], []) for l in lines)
    shared = [g for g in first if g in third]
    return shared, any(g in shared for g in fourth)
    """,
    "只认平声韵（近体押平声韵）": _SPLIT + """
    first, second, _, fourth = (groups.get(l[-1], []) for l in lines)
    shared = [g for g in second if g in fourth and "平声" in g]
    return shared, any(g in shared for g in first)
    """,
    "集合求交集后按字排序（不是韵书次序）": _SPLIT + """
    first, second, _, fourth = (set(groups.get(l[-1], [])) for l in lines)
    shared = sorted(second & fourth)
    return shared, bool(first & second & fourth)
    """,
    "查不到的字直接 groups[字]": _SPLIT + """
    first, second, _, fourth = (groups[l[-1]] for l in lines)
    shared = [g for g in second if g in fourth]
    return shared, any(g in shared for g in first)
    """,
    "在 groups 的列表上原地筛": _SPLIT + """
    first, second, _, fourth = (groups.get(l[-1], []) for l in lines)
    second[:] = [g for g in second if g in fourth]
    return list(second), any(g in second for g in first)
    """,
    "不看 groups，调用课程包（捷径）": """
    from poetry_gpt.prosody import quatrain_rhyme
    r = quatrain_rhyme(poem)
    return list(r.groups), r.first_line
    """,
}
ONLY_VISIBLE_24 = set()


@pytest.mark.parametrize("name", WRONG_24)
def test_lesson_24_wrong_solutions_fail(name, tmp_path):
    v = wrong_verdict(24, WRONG_24[name], tmp_path)
    assert v.kind in ("wrong", "crashed"), (name, v.kind, v.message)


def test_lesson_24_shortcut_is_refused_with_the_reason(tmp_path):
    v = wrong_verdict(24, WRONG_24["不看 groups，调用课程包（捷径）"], tmp_path)
    assert v.kind == "wrong" and "groups" in v.message and "poetry_gpt" in v.message, v.message


@pytest.mark.parametrize("name", sorted(set(WRONG_24) - ONLY_VISIBLE_24))
def test_lesson_24_random_cases_alone_catch_wrong_solutions(name, tmp_path):
    assert differential_catches(24, WRONG_24[name], tmp_path), name
