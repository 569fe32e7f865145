"""第 01 课差分检查：随课程发布的模型在真实诗句后面给出的 logits，加上几种边角，比较两边列出的候选字与概率。

真实的 logits 来自 data/model.pt：几首名篇的条件区加上一段正文（随机截断），送进模型，取最后一个位置。
一次检查只读一次模型，8 段前文补齐成一批、只算一次前向。边角：分数整体加上或减去几千（不减最大值就溢出成 inf
或得到 0 / 0）；除以温度 0.1，最高与最低的分数差上百（减去最小值也会溢出）；受约束解码那样把一些字挡成 -inf，候选比 k 少；分数相同的字；k = 1；
分数有限、概率却小到 float32 里成了 0 的字（它仍是候选：看的是分数是不是 -inf，不是概率是不是 0）。
"""

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import PAD, SPECIAL, default_tokenizer, encode_sample

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {
    "softmax": "请不要调用 softmax 函数：本课要亲手写出减去最大值、取 e 的次方、除以总和这三步；第 10 课以后再用 torch.softmax"
}
# Categorical(logits=…).probs 与 log_softmax 再取 e 的次方也是一步做完
FORBIDDEN.update({name: FORBIDDEN["softmax"] for name in ("distributions", "categorical")})
# 源码规则之外的第二道关：差分检查时这些函数与算子换成绊线，不论怎样拼出名字，碰上就不通过（见 runner.install_tripwires）
TRIPWIRES = (
    "aten::_softmax",
    "aten::_log_softmax",
    "aten::_masked_softmax",
    "aten::_scaled_dot_product_flash_attention_for_cpu",  # 注意力权重就是 softmax：q·k 凑成 logits 即可
    "torch.softmax",
    "torch.nn.functional.softmax",
    "torch.Tensor.softmax",
    "torch.special.softmax",
)

# 几首名篇（正文带标点）：截取其中一段当前文，让模型给下一个字打分
_POEMS = (
    ("五言绝句", "床前明月光，疑是地上霜。举头望明月，低头思故乡。"),
    ("五言绝句", "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"),
    ("五言绝句", "千山鸟飞绝，万径人踪灭。孤舟蓑笠翁，独钓寒江雪。"),
    ("五言绝句", "红豆生南国，春来发几枝。愿君多采撷，此物最相思。"),
    ("七言绝句", "月落乌啼霜满天，江枫渔火对愁眠。姑苏城外寒山寺，夜半钟声到客船。"),
    ("七言绝句", "朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。"),
    ("七言绝句", "汉使却回凭寄语，黄金何日赎蛾眉？君王若问妾颜色，莫道不如宫里时。"),
)
_TOY_CHARS = "春夏秋冬山水风月花鸟云雨江天"


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _prefix(gen, tok):
    """一首名篇的前文：条件区（<bos>、体裁、诗里随机一个字作关键词、<sep>）加正文的随机一段（0 个字到全诗）。"""
    form, text = _POEMS[_int(gen, 0, len(_POEMS))]
    keyword = text[_int(gen, 0, len(text))]
    while keyword in "，。？":
        keyword = text[_int(gen, 0, len(text))]
    ids = encode_sample({"form": form, "text": text}, tok, [keyword])[:-1]  # 去掉 <eos>
    return ids[: len(ids) - len(text) + _int(gen, 0, len(text) + 1)]


def _last_logits(model, prefixes):
    """每段前文最后一个位置的 logits [V]。几段前文补齐成一批，只算一次前向：
    注意力是因果的，补在后面的 <pad> 影响不到前面的位置。"""
    T = max(map(len, prefixes))
    ids = torch.tensor([p + [PAD] * (T - len(p)) for p in prefixes])
    with torch.no_grad():
        logits, _ = model(ids)  # [B, T, V]
    return [logits[b, len(p) - 1].clone() for b, p in enumerate(prefixes)]


def _real(gen, i, logits, tok):
    """真实的 logits 加上第 i 种边角（见 cases）。"""
    kind = i % 8
    k = 1 if kind in (0, 1) else _int(gen, 2, 11)
    if kind == 1:  # 温度 0.1（第 21 课）：最高与最低的分数差上百，e 的次方会溢出；
        logits = logits / 0.1  # 第 2 名以后的概率可能小到 float32 存不下，所以只要 1 个
    elif kind == 2:
        logits = logits + 3000.0  # e 的 3000 次方溢出成 inf
    elif kind == 3:
        logits = logits - 3000.0  # e 的次方全是 0：0 / 0
    elif kind == 4:  # 只许汉字（像受约束解码的句中一格）
        logits[: len(SPECIAL)] = float("-inf")
        logits[[tok.stoi[p] for p in "，。？"]] = float("-inf")
    elif kind == 5:  # 句尾一格：只剩几个标点，候选比 k 少
        keep = torch.full_like(logits, float("-inf"))
        ends = [tok.stoi[p] for p in "，。？"]  # 汉字表里没有 ！
        keep[ends] = logits[ends]
        logits, k = keep, len(ends) + _int(gen, 1, 4)
    elif kind == 7:  # 把最高分抄给另外两个字：并列第一，编号小的在前
        top = int(logits.argmax())
        logits[_int(gen, 0, len(logits))] = logits[top]
        logits[_int(gen, 0, len(logits))] = logits[top]
    return logits, tok.tokens, k


def _toy(gen, i):
    """小汉字表：整数分数（常有并列），有时有 -inf、有时整体大到几千；k 从 1 到比 V 还大。"""
    V = _int(gen, 3, 13)
    order = torch.randperm(len(_TOY_CHARS), generator=gen)[:V].tolist()
    chars = [_TOY_CHARS[j] for j in order]
    logits = torch.randint(-3, 4, (V,), generator=gen).float()
    if i % 2 == 0:
        blocked = torch.rand(V, generator=gen) < 0.4
        blocked[_int(gen, 0, V)] = False  # 至少留一个有限的分数
        logits[blocked] = float("-inf")
    if i % 4 == 2:  # 一个字的分数比最高分低 200：e 的 −200 次方在 float32 里是 0，
        lower = [j for j in range(V) if logits[j] != float("-inf") and logits[j] < logits.max()]
        if lower:  # 概率是 0.0，可分数有限，仍是候选（k 比 V 大，全部候选都要列出）
            logits[lower[0]] = logits.max() - 200.0
    if i % 3 == 0:
        logits = logits + (5000.0 if i % 2 else -5000.0)
    k = (1, V, V + 2, _int(gen, 1, V + 1))[i % 4]
    return logits, chars, k


def cases(gen):
    """24 个用例：(logits [V] float32, chars 长 V 的列表, k)。

    前 8 个是随课程发布的模型的真实 logits（V = 6672），依次：k = 1；除以温度 0.1、k = 1；整体加 3000；整体减 3000；
    挡掉标点和特殊标记；只剩句尾标点、k 比候选多；普通；三个字并列第一。后 16 个是整数分数的小汉字表，
    其中几个有一个字比最高分低 200（概率在 float32 里是 0.0，却不是 -inf，仍要列为候选）。
    """
    tok = default_tokenizer()
    model, _ = load_model()
    prefixes = [_prefix(gen, tok) for _ in range(8)]
    out = [_real(gen, i, logits, tok) for i, logits in enumerate(_last_logits(model, prefixes))]
    out += [_toy(gen, i) for i in range(16)]
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _finite(logits):
    return logits[torch.isfinite(logits)]


KINDS = {
    "分数整体加上几千（不减最大值就溢出成 inf）": lambda case, want: _finite(case[0]).max() > 1000,
    "分数整体减去几千（e 的次方全是 0：0 / 0）": lambda case, want: _finite(case[0]).max() < -1000,
    "温度 0.1：最高与最低的分数差上百": lambda case, want: (
        abs(_finite(case[0]).max()) < 1000 and _finite(case[0]).max() - _finite(case[0]).min() > 100
    ),
    "有 -inf 的字（不是候选）": lambda case, want: bool(torch.isinf(case[0]).any()),
    "候选不到 k 个": lambda case, want: len(want) < case[2],
    "k 比 V 还大": lambda case, want: case[2] > len(case[1]),
    "k = 1": lambda case, want: case[2] == 1,
    "并列第一": lambda case, want: len(want) > 1 and want[0][1] == want[1][1],
    "概率相同的字（编号小的在前）": lambda case, want: len({p for _, p in want}) < len(want),
    "概率在 float32 里是 0、分数却有限（仍是候选）": lambda case, want: any(p == 0.0 for _, p in want),
    "真实汉字表（V = 6672，含 <eos> 等特殊标记）": lambda case, want: len(case[1]) > 1000,
}
