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
    return text  # kind 0、10、11：原样


def cases(gen):
    """36 个用例：(text,)。轮换 12 种：0–9 十种改法，10、11 也原样不改（合格的诗要够多）；
    每轮第一首从带 ？ 的诗里抽（语料里只有几十首），前十个用例里也隔三个抽一首。"""
    poems = load_poems()
    asking = [p["text"] for p in poems if "？" in p["text"]]
    texts = [p["text"] for p in poems]
    out = []
    for i in range(36):
        text = _pick(gen, asking) if i % 12 == 0 or i < 12 and i % 3 == 0 else _pick(gen, texts)
        out.append((_damage(i % 12, text, _pick(gen, texts), gen),))
    return out
