"""第 24 课差分检查：语料里的真诗逐字查出平仄（句中按句中的读法，句尾按全部读音），比较两边找出的孤平、三平尾。"""

import torch

from poetry_gpt.data import load_poems, split_lines
from poetry_gpt.prosody import ZE, poem_tones, rhyme_groups, tail_fault

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {
    name: (
        f"请不要用 {name}：本课要你自己看每句的后五字、数平声字，找出孤平与三平尾——"
        "调用课程包里现成的判断（prosody.tail_fault、tone_report），就练不到这一步"
    )
    for name in ("poetry_gpt", "prosody", "tail_fault", "tone_report")
}

_KINDS = (
    "val",
    "五言孤平",
    "七言孤平（前两字有平）",
    "三平尾",
    "孤平拗救",
    "句中两读",
    "三平尾位置上两读",
    "仄声收尾",
    "有查不到的字",
    "首句只与第四句同韵",
)
"""轮换取诗的十组，见 :func:`cases`。"""


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _pools():
    """按各句后五字的情形把语料里的诗分组（每组保持语料的次序，用例因此可以复现）。
    val 全取；其余的诗每 5 首取 1 首（约两万首，每组仍有上百首，检查几秒钟就能开始）。"""
    pools = {name: [] for name in _KINDS + ("仄仄仄仄平", "首句入韵且犯了")}
    for k, poem in enumerate(load_poems()):
        if poem["split"] != "val" and k % 5:
            continue
        lines = split_lines(poem["text"])
        tones = poem_tones(lines)
        faults = [tail_fault(t) for t in tones]
        tails = [t[-5:] for t in tones]
        if poem["split"] == "val":
            pools["val"].append((lines, tones))
        size = len(lines[0])
        for t, fault, full in zip(tails, faults, tones):
            if fault == "孤平" and size == 5:
                pools["五言孤平"].append((lines, tones))
                if all(x == ZE for x in t[:4]):
                    pools["仄仄仄仄平"].append((lines, tones))
            if fault == "孤平" and size == 7 and ZE not in full[:2]:
                pools["七言孤平（前两字有平）"].append((lines, tones))
            if fault == "三平尾":
                pools["三平尾"].append((lines, tones))
            if t[0] == ZE and t[1] == "平" and t[2] == "平" and t[3] == ZE and t[4] != ZE:
                pools["孤平拗救"].append((lines, tones))
            if t[4] != ZE and "平仄" in t[:4] and sum(x != ZE for x in t[:4]) == 2 and t[3] == ZE:
                pools["句中两读"].append((lines, tones))  # 把两读当仄就成了孤平
            if t[4] != ZE and {t[2], t[3]} == {"平", "平仄"}:
                pools["三平尾位置上两读"].append((lines, tones))  # 把两读当平就成了三平尾
            if t[4] == ZE and (tail_fault(t[:4] + ["平"]) is not None):
                pools["仄声收尾"].append((lines, tones))  # 句尾换成平声就犯了：不能不看句尾
            if "未知" in t[:4] and t[4] != ZE:
                pools["有查不到的字"].append((lines, tones))
        if faults[0] and tones[0][-1] != ZE:
            pools["首句入韵且犯了"].append((lines, tones))
        first, second, fourth = (set(rhyme_groups(line[-1])) for line in (lines[0], lines[1], lines[3]))
        if first & fourth and not first & second:
            pools["首句只与第四句同韵"].append((lines, tones))  # 第一句与第四句同韵，与第二句不同韵
    return pools


def cases(gen):
    """40 个用例：(lines, tones)，lines 是语料里一首真诗的四句，tones 是逐字的平仄（prosody.poem_tones）。

    按顺序轮换十种：val 里随机的诗；五言有孤平的诗（每隔一次是后五字 仄仄仄仄平、一个平声字也没有的）；
    七言有孤平、前两字却有平声字的诗（看整句就数错了）；有三平尾的诗；有孤平拗救（仄平平仄平）的诗；
    后五字里的第二个可能读平的字是两读的诗（把两读当仄就判成孤平）；倒数第三、二字一平一两读的诗
    （把两读当平就判成三平尾）；仄声收尾、句尾若是平声就犯了的诗；后五字里有查不到的字的诗；
    第一句只与第四句同韵的诗（每隔一次换成第一句以平声收尾、自己犯了孤平或三平尾的诗：第一句也要查）。
    """
    pools = _pools()
    out = []
    for i in range(40):
        name = _KINDS[i % 10]
        if name == "五言孤平" and i // 10 % 2:
            name = "仄仄仄仄平"
        if name == "首句只与第四句同韵" and i // 10 % 2:
            name = "首句入韵且犯了"
        pool = pools[name]
        lines, tones = pool[_int(gen, 0, len(pool))]
        out.append((list(lines), [list(t) for t in tones]))
    return out


def compare(expected, got):
    """说清是哪一句、该报什么：参考答案是 [(第几句, 毛病), …]。"""
    if not isinstance(got, (list, tuple)):
        return f'应返回列表（每项是 (第几句, "孤平" 或 "三平尾")），实际是 {type(got).__name__}'
    try:
        items = [tuple(x) for x in got]
    except TypeError:
        return '列表里的每一项应是 (第几句, "孤平" 或 "三平尾") 两项'
    want = [tuple(x) for x in expected]
    if items == want:
        return None
    if sorted(items, key=repr) == sorted(want, key=repr):
        return "该报的都报了，但次序不对：按句子的先后排"
    missed = [x for x in want if x not in items]
    extra = [x for x in items if x not in want]
    parts = [f"第 {n} 句应判为{kind}，你的答案没有报" for n, kind in missed]
    parts += [f"你报了 {x!r}，这一句没有犯（或句号、名字写得不对：句子从 1 数，毛病写“孤平”或“三平尾”）" for x in extra]
    return "；".join(parts)


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _tails(case):
    """每句最后五个字的平仄，只看以平声收尾的句子。"""
    return [t[-5:] for t in case[1] if t[-1] != ZE]


KINDS = {
    "孤平": lambda case, want: any(kind == "孤平" for _, kind in want),
    "三平尾": lambda case, want: any(kind == "三平尾" for _, kind in want),
    "一句也没犯": lambda case, want: want == [],
    "五言": lambda case, want: len(case[0][0]) == 5,
    "七言": lambda case, want: len(case[0][0]) == 7,
    "仄仄仄仄平": lambda case, want: any(t[:4] == [ZE] * 4 for t in _tails(case)),
    "孤平拗救（仄平平仄平）": lambda case, want: any(t[:4] == [ZE, "平", "平", ZE] for t in _tails(case)),
    "后五字里有两读的字（平仄）": lambda case, want: any("平仄" in t[:4] for t in _tails(case)),
    "后五字里有查不到的字（未知）": lambda case, want: any("未知" in t[:4] for t in _tails(case)),
    "仄声收尾的句子": lambda case, want: any(t[-1] == ZE for t in case[1]),
    "第一句自己犯了": lambda case, want: any(n == 1 for n, _ in want),
    "第四句犯了": lambda case, want: any(n == 4 for n, _ in want),
}
