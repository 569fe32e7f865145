"""第 24 课：参考答案与 prosody.tail_fault 一致；名诗的平仄与押韵有已知答案；诗律解码与课文说的一样；
错误答案都过不了 ./poet check。"""

import importlib.util
from collections import Counter

import pytest
import torch
from lesson_bank import differential_catches, wrong_verdict

from courseware.catalogue import BY_NUMBER
from poetry_gpt import prosody, rhyme_book
from poetry_gpt.constraints import Constraint
from poetry_gpt.data import default_tokenizer, load_poems, split_lines
from poetry_gpt.prosody import BOTH, PING, ZE
from poetry_gpt.settings import VERSE, Rules

TOK = default_tokenizer()
TABLE = prosody.load_table()

SHAN_XING = "远上寒山石径斜，白云生处有人家。停车坐爱枫林晚，霜叶红于二月花。"
CHUN_XIAO = "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。"
QIU_PU = "白发三千丈，缘愁似个长。不知明镜里，何处得秋霜。"
QING_PING = "名花倾国两相欢，长得君王带笑看。解释春风无限恨，沉香亭北倚阑干。"
WANG_ZHAO_JUN = "汉使却回凭寄语，黄金何日赎蛾眉？君王若问妾颜色，莫道不如宫里时。"
CHU_SAI = "秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴山。"
HUI_XIANG = "少小离家老大回，乡音难改鬓毛衰。儿童相见不相识，笑问客从何处来。"


def load_solution():
    path = BY_NUMBER[24].folder / "solution.py"
    spec = importlib.util.spec_from_file_location("solution_24", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 名诗的已知答案（课文第 2、3 段） ----------


@pytest.mark.parametrize(
    "poem, ends, groups, first_line, level",
    [
        (SHAN_XING, "斜家晚花", ("下平声六麻",), True, PING),
        (CHUN_XIAO, "晓鸟声少", ("上声十七筱",), True, ZE),  # 仄韵也是韵
        (QIU_PU, "丈长里霜", ("下平声七阳",), False, PING),  # 丈与长同在养，却不在共同韵部里
        (QING_PING, "欢看恨干", ("上平声十四寒", "去声十五翰"), True, BOTH),  # 看、干共有两个韵部
        (WANG_ZHAO_JUN, "语眉色时", ("上平声四支",), False, PING),  # 第二句以 ？ 结尾
    ],
)
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
    assert wrong == [(1, 0), (1, 2), (3, 0)]  # 都在第一、三字上
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
    # 吾的麻韵一读诗人不用（作韵脚的 43 次全在虞韵），建表时去掉了（PINGSHUI_STRIKE）
    assert prosody.rhyme_groups("吾") == ("上平声七虞",) and TABLE["吾"]["struck"] == {"下平声六麻": 0}


def test_rare_readings_in_the_table_and_exercise_one():
    # 韵表的来源把祖也列进麻韵，语料里它作韵脚却只按麌韵押：建表时去掉（课文“表说了算，表也有表的毛病”）
    assert TABLE["祖"]["groups"] == ["上声七麌"] and TABLE["祖"]["rhymes"] == {"上声七麌": 10}
    assert TABLE["祖"]["struck"] == {"下平声六麻": 0} and prosody.tone_class("祖") == ZE
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
    assert len(chars) == 98 and "花" in chars and not {"斜", "家"} & set(chars)
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
    rhyme = [g for g, on in zip(rhyme_book.GROUPS, c.verse.rhyme.tolist()) if on]
    assert rhyme == ["下平声九青"] and "青" in allowed(c) and "长" not in allowed(c)


# ---------- 参考答案与包里的函数 ----------


def faults_of(lines):
    return [(k + 1, f) for k, t in enumerate(prosody.poem_tones(lines)) if (f := prosody.tail_fault(t))]


def test_solution_matches_tail_fault_on_every_val_poem():
    solve = load_solution().solve
    poems = [split_lines(p["text"]) for p in load_poems("val")]
    assert len(poems) == 4924
    found = Counter()
    for lines in poems:
        got = solve(lines, prosody.poem_tones(lines))
        assert got == faults_of(lines), lines
        found.update(kind for _, kind in got)
        # tone_report 只在格式要平声收尾的句子上报，那些句子与练习的判断相同
        report = prosody.tone_report(lines, lenient=True)
        assert set(report.faults) <= set(got), lines
    assert found["孤平"] > 100 and found["三平尾"] > 100  # 人写的诗里两种都真有


def test_solution_reads_only_the_tones_it_is_given():
    solve = load_solution().solve
    lines = split_lines(CHU_SAI)
    tones = prosody.poem_tones(lines)
    assert solve(lines, tones) == []
    tones[1][2] = ZE  # 长 改成只读仄：长征人未还 → 仄平平仄平，孤平拗救，仍不算
    assert solve(lines, tones) == []
    tones[1][4] = ZE  # 人 也改成仄：仄平仄仄平，孤平
    assert solve(lines, tones) == [(2, "孤平")]


def test_exercise_cases_cover_every_kind():
    check = _check_module()
    cases = check.cases(torch.Generator().manual_seed(0))
    assert len(cases) == 40
    solve = load_solution().solve
    kinds = Counter(kind for lines, tones in cases for _, kind in solve(lines, tones))
    assert kinds["孤平"] >= 8 and kinds["三平尾"] >= 4
    assert any(solve(lines, tones) == [] for lines, tones in cases)
    first = [c for i, c in enumerate(cases) if i % 10 == 9]
    assert any(f[0] == 1 for lines, tones in first for f in solve(lines, tones))  # 第一句自己犯了
    for lines, tones in first[::2]:  # 第一句只与第四句同韵
        a, b, d = (set(prosody.rhyme_groups(line[-1])) for line in (lines[0], lines[1], lines[3]))
        assert a & d and not a & b


def _check_module():
    spec = importlib.util.spec_from_file_location("check_24", BY_NUMBER[24].folder / "check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 错误答案 ----------

_HEAD = """
    faults = []
    for number, line_tones in enumerate(tones, start=1):
"""
BANK = {
    "七言看整句（不取后五字）": _HEAD
    + """
        t = line_tones
        if t[-1] == "仄":
            continue
        if t[-3] == "平" and t[-2] == "平":
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t[:-1]) <= 1 and t[-2] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "五言七言都看前五字": _HEAD
    + """
        t = line_tones[:5]
        if line_tones[-1] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "孤平时把两读当仄": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x == "平" for x in t[:4]) <= 1 and t[3] != "平":
            faults.append((number, "孤平"))
    return faults
    """,
    "三平尾把两读当平": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] != "仄" and t[3] != "仄" and "未知" not in t[2:4]:
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "不看句尾是不是平声": _HEAD
    + """
        t = line_tones[-5:]
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "只查第二、四句（押韵的句子）": _HEAD
    + """
        if number not in (2, 4):
            continue
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "查不到的字当仄": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x in ("平", "平仄") for x in t[:4]) <= 1 and t[3] in ("仄", "未知"):
            faults.append((number, "孤平"))
    return faults
    """,
    "孤平只认 仄平仄仄平": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif t[0] == "仄" and t[1] != "仄" and t[2] == "仄" and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "孤平拗救也判孤平（只看第一字）": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif t[0] == "仄" and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "句子从 0 数": """
    faults = []
    for number, line_tones in enumerate(tones):
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "只返回毛病的名字": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append("三平尾")
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append("孤平")
    return faults
    """,
    "三平尾要求句尾也是纯平（两读收尾漏掉）": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平" and t[4] == "平":
            faults.append((number, "三平尾"))
        elif t[2] == "平" and t[3] == "平":
            continue
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "在字符串里找“仄平仄”": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        marks = "".join("平" if x != "仄" else "仄" for x in t)
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif "仄平仄仄" in marks:
            faults.append((number, "孤平"))
    return faults
    """,
    "在 tones 上原地截取后五字": _HEAD
    + """
        del line_tones[:-5]
        t = line_tones
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "三平尾与孤平反了": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "孤平"))
        elif sum(x != "仄" for x in t[:4]) <= 1 and t[3] == "仄":
            faults.append((number, "三平尾"))
    return faults
    """,
    "孤平数的是整句的平声字（含韵脚）": _HEAD
    + """
        t = line_tones[-5:]
        if t[4] == "仄":
            continue
        if t[2] == "平" and t[3] == "平":
            faults.append((number, "三平尾"))
        elif sum(x != "仄" for x in t) <= 1 and t[3] == "仄":
            faults.append((number, "孤平"))
    return faults
    """,
    "不看 tones，调用课程包（捷径）": """
    from poetry_gpt.prosody import tail_fault
    return [(k + 1, f) for k, t in enumerate(tones) if (f := tail_fault(t))]
    """,
}
ONLY_VISIBLE_24 = set()
CAUGHT_BY_THE_RULE_24 = {"不看 tones，调用课程包（捷径）"}  # 算得对，只有源码规则拦得住（沙箱里也没有 poetry_gpt）


@pytest.mark.parametrize("name", BANK)
def test_lesson_24_wrong_solutions_fail(name, tmp_path):
    v = wrong_verdict(24, BANK[name], tmp_path)
    assert v.kind in ("wrong", "crashed"), (name, v.kind, v.message)


def test_lesson_24_shortcut_is_refused_with_the_reason(tmp_path):
    v = wrong_verdict(24, BANK["不看 tones，调用课程包（捷径）"], tmp_path)
    assert v.kind == "wrong" and "poetry_gpt" in v.message and "孤平" in v.message, v.message


@pytest.mark.parametrize("name", sorted(set(BANK) - ONLY_VISIBLE_24 - CAUGHT_BY_THE_RULE_24))
def test_lesson_24_random_cases_alone_catch_wrong_solutions(name, tmp_path):
    assert differential_catches(24, BANK[name], tmp_path), name


def test_lesson_24_messages_name_the_line(tmp_path):
    check = _check_module()
    assert check.compare([(2, "孤平")], []) == "第 2 句应判为孤平，你的答案没有报"
    assert "次序" in check.compare([(1, "孤平"), (4, "三平尾")], [(4, "三平尾"), (1, "孤平")])
    assert "从 1 数" in check.compare([(2, "孤平")], [(1, "孤平")])
    assert check.compare([(2, "孤平")], [[2, "孤平"]]) is None
    assert "列表" in check.compare([], "孤平")
