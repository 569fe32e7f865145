"""第 24 课差分检查：语料里的真诗与从 data/rhymes.json 切出的韵部表，比较两边判出的共同韵部与首句入韵。"""
import torch

from poetry_gpt.data import load_poems, split_lines
from poetry_gpt.prosody import group_tone, load_table

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）。
# data/rhymes.json 不必列出：沙箱里没有 data/
FORBIDDEN = {name: (f"请不要用 {name}：本课要你用传进来的 groups 自己查出句尾字的韵部、找共同的韵部——"
                    "调用课程包里现成的判断，就练不到这一步")
             for name in ("poetry_gpt", "prosody", "quatrain_rhyme", "share_rhyme")}


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _slice(text, table):
    """这首诗用到的字 → 韵部列表（按韵书次序）；表里没有的字不放进去。"""
    return {ch: list(table[ch]["groups"]) for ch in dict.fromkeys(text) if ch in table}


KINDS = ("val", "几个共同韵部", "韵书次序不是字的次序", "有？", "仄韵", "句尾查不到", "首句只与第二句同韵",
         "第一个韵部不同", "二四句同一个字")
"""轮换取诗的九组；第十种用例是拿掉一个句尾字的 val 诗。"""


def _pools(table):
    """按句尾字的情形把语料里的诗分组（每组保持语料的次序，用例因此可以复现）。
    “二四句以？结尾”不单独轮换：“有？”那一种每隔一次从这里取。"""
    pools = {name: [] for name in KINDS + ("二四句以？结尾",)}
    for poem in load_poems():
        text = poem["text"]
        ends = [line[-1] for line in split_lines(text)]
        first, second, _, fourth = (table[ch]["groups"] if ch in table else [] for ch in ends)
        shared = [g for g in second if g in fourth]
        if poem["split"] == "val":
            pools["val"].append(text)
        if len(shared) >= 2:
            pools["几个共同韵部"].append(text)
        if sorted(shared) != shared:   # 如 阳、养：按字排，上声排到了下平声前面
            pools["韵书次序不是字的次序"].append(text)
        if "？" in text:
            pools["有？"].append(text)
            if text[len(text) // 2 - 1] == "？" or text[-1] == "？":
                pools["二四句以？结尾"].append(text)
        if shared and all(group_tone(g) == "仄" for g in shared):
            pools["仄韵"].append(text)
        if any(ch not in table for ch in (ends[0], ends[1], ends[3])):
            pools["句尾查不到"].append(text)
        if shared and set(first) & set(second) and not set(first) & set(shared):
            pools["首句只与第二句同韵"].append(text)
        if shared and second[0] not in fourth:
            pools["第一个韵部不同"].append(text)
        if ends[1] == ends[3]:
            pools["二四句同一个字"].append(text)
    return pools


def cases(gen):
    """40 个用例：(poem, groups)，poem 是语料里的一首真诗（带标点），groups 是从平水韵表切出的这首诗用到的字。

    按顺序轮换十种：val 里随机的诗；二、四句句尾字共有两个以上韵部（多音字，如 看、干 同在寒、翰）；
    共同的韵部按韵书次序与按字排的次序不同（如 阳、养）；句尾有 ？ 的诗（每隔一次是第二或第四句以 ？ 结尾）；
    押仄韵的诗；句尾字表里查不到；首句句尾只与第二句同韵、不在共同韵部里（如 丈、长、霜）；
    第二句句尾字的第一个韵部不押韵、后面的才押（如 行 与 城 同在庚）；二、四句用同一个字收尾；
    还有一种把 val 诗的一个句尾字从 groups 里拿掉（这份表里查不到它，就不押韵——不能不看 groups 去查别的表）。
    """
    table = load_table()
    pools = _pools(table)
    out = []
    for i in range(40):
        kind = i % 10
        if kind < len(KINDS):
            pool = pools[KINDS[kind]]
            if KINDS[kind] == "有？" and i // 10 % 2:
                pool = pools["二四句以？结尾"]
            text = pool[_int(gen, 0, len(pool))]
            groups = _slice(text, table)
        else:
            text = pools["val"][_int(gen, 0, len(pools["val"]))]
            groups = _slice(text, table)
            drop = split_lines(text)[(0, 1, 3)[i // 10 % 3]][-1]
            groups.pop(drop, None)
        out.append((text, groups))
    return out
