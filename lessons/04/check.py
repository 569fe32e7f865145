"""第 04 课差分检查：真实的绝句，以及把它们改坏的各种样子，比较两边给出的体裁或剔除原因。"""

import torch

from poetry_gpt.data import load_poems, split_lines

_LINE_ENDS = "，。？！"


def _pick(gen, items):
    return items[int(torch.randint(len(items), (1,), generator=gen))]


def _lines(text):
    """[(不带标点的句子, 结尾标点), …]"""
    return list(zip(split_lines(text), [ch for ch in text if ch in _LINE_ENDS]))


def _join(lines):
    return "".join(body + end for body, end in lines)


def _damage(kind, text, other, gen):
    """按 kind 把一首真诗改成某种样子；kind 0 原样返回。"""
    lines = _lines(text)
    which = int(torch.randint(4, (1,), generator=gen))
    later = 1 + int(torch.randint(3, (1,), generator=gen))  # 第一句以外的某一句
    if kind == 1:  # 末尾的标点丢了：结尾缺少标点
        return text[:-1]
    if kind == 2:  # 某个标点重复一次：孤零零的标点
        at = sum(len(b) + 1 for b, _ in lines[: which + 1])
        return text[:at] + text[at - 1] + text[at:]
    if kind == 3:  # 少一句
        return _join(lines[:which] + lines[which + 1 :])
    if kind == 4:  # 两首连在一起：八句
        return text + other
    if kind == 5:  # 第一句以外的一句少一个字
        body, end = lines[later]
        lines[later] = (body[:-1], end)
        return _join(lines)
    if kind == 6:  # 第一句以外的一句多一个字
        body, end = lines[later]
        lines[later] = (body + body[0], end)
        return _join(lines)
    if kind == 7:  # 四句都少一个字：六言或四言
        return _join([(b[:-1], e) for b, e in lines])
    if kind == 8:  # 四句都多一个字：六言或八言
        return _join([(b + b[-1], e) for b, e in lines])
    if kind == 9:  # 开头多一个标点
        return _pick(gen, _LINE_ENDS) + text
    # 下面几种只坏一个条件、别的都对：查的先后（结尾缺少标点 → 不是四句 → 句子长短不一 → 不是五言或七言）
    # 每换一种次序，总有一种在这里答错
    if kind in (12, 13):  # 只有第一句少（多）一个字：另外三句一样长，又都是五言或七言
        body, end = lines[0]
        lines[0] = (body[:-1] if kind == 12 else body + body[0], end)
        return _join(lines)
    if kind == 14:  # 少一句，剩下的又长短不一：先报“不是四句”
        body, end = lines[later]
        lines[later] = (body[:-1], end)
        return _join(lines[:which] + lines[which + 1 :] if which != later else lines[1:])
    if kind == 15:  # 句尾换成 ！（语料里没有，课文说它也是句尾标点）：仍是一首合格的绝句
        return _join([(b, "！" if k == which else e) for k, (b, e) in enumerate(lines)])
    return text  # kind 0、10、11：原样


def cases(gen):
    """48 个用例：(text,)。轮换 16 种：0–9 十种改法，10、11 原样不改（合格的诗要够多），12–14 只坏一个条件
    （只有第一句长短不同；少一句、剩下的又长短不一），15 一处句尾换成 ！；
    每轮第一首从带 ？ 的诗里抽（语料里只有几十首），前十二个用例里也隔三个抽一首。"""
    poems = load_poems()
    asking = [p["text"] for p in poems if "？" in p["text"]]
    texts = [p["text"] for p in poems]
    out = []
    for i in range(48):
        text = _pick(gen, asking) if i % 16 == 0 or i < 12 and i % 3 == 0 else _pick(gen, texts)
        out.append((_damage(i % 16, text, _pick(gen, texts), gen),))
    return out


def _split(text):
    """[(句子, 句尾标点), …]；标点拼不回原文（末尾的尾巴、孤零零的标点）时为 None。"""
    lines = _lines(text)
    return lines if _join(lines) == text else None


def _sizes(case):
    lines = _split(case[0])
    return [len(b) for b, _ in lines] if lines else []


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "五言绝句": lambda case, want: want == "五言绝句",
    "七言绝句": lambda case, want: want == "七言绝句",
    **{f"句尾 {mark}": lambda case, want, mark=mark: mark in case[0][:-1] and "绝句" in want for mark in "，。？！"},
    "末尾没有标点的尾巴": lambda case, want: case[0][-1] not in _LINE_ENDS,
    "孤零零的标点": lambda case, want: case[0][-1] in _LINE_ENDS and _split(case[0]) is None,
    "不是四句（少一句）": lambda case, want: len(_sizes(case)) == 3,
    "不是四句（八句）": lambda case, want: len(_sizes(case)) == 8,
    "不是四句、剩下的句子又长短不一": lambda case, want: len(_sizes(case)) == 3 and len(set(_sizes(case))) > 1,
    "只有第一句长短不同（另外三句是五言或七言）": lambda case, want: (
        len(_sizes(case)) == 4
        and _sizes(case)[0] != _sizes(case)[1]
        and len(set(_sizes(case)[1:])) == 1
        and _sizes(case)[1] in (5, 7)
    ),
    "第一句以外的一句长短不同": lambda case, want: (
        len(_sizes(case)) == 4 and len(set(_sizes(case)[1:])) > 1 and _sizes(case).count(_sizes(case)[0]) == 3
    ),
    "四句一样长、却不是五言或七言": lambda case, want: want == "不是五言或七言",
}
