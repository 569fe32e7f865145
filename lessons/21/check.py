"""第 21 课差分检查：随课程发布的模型在真诗前文后面给出的真实分数，加上专门造的并列，比较两边截断后的 logits。"""

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import BOS, SEP, default_tokenizer, form_of, keywords_for, load_poems

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {
    "poetry_gpt": "本课要自己写温度、top-k 与 top-p：不要调用课程包 poetry_gpt 里现成的 filter_logits、sample_next"
}

_SETTINGS = [(0.8, 40, 0.95), (1.0, None, 0.9), (0.5, 5, None), (1.5, 0, 0.8), (0.8, 1, 0.5), (1.2, 200, 0.99)]


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _reference_before(logits, temperature, top_k):
    """温度与 top-k 之后、从高到低排好的每个字“排在它前面的概率之和”（float64），用来让随机的 p 离边界远一点。"""
    out = logits.double() / temperature
    if top_k:
        out = out.masked_fill(out < torch.topk(out, min(top_k, len(out))).values[-1], float("-inf"))
    probs = torch.softmax(torch.sort(out, descending=True).values, -1)
    return (torch.cumsum(probs, -1) - probs)[probs > 0]


def _away_from_boundary(gen, logits, temperature, top_k):
    """随机的 top_p，离任何一个“前面的概率之和”都至少 1e-5（float32 累加的误差远小于它）：边界上的并列另有专门的用例。"""
    before = _reference_before(logits, temperature, top_k)
    while True:
        p = float(torch.rand(1, generator=gen)) * 0.98 + 0.01
        if (before - p).abs().min() > 1e-5:
            return p


def _real_logits(n, gen):
    """n 行真实分数 [V]：val 里随机 n 首诗，条件区 + 正文开头随机几个字，随课程发布的模型给下一个字打的分。"""
    tok = default_tokenizer()
    model, _ = load_model()
    poems = load_poems("val")
    rows = []
    for _ in range(n):
        poem = poems[_int(gen, 0, len(poems))]
        body = tok.encode(poem["text"])
        ids = [BOS, form_of(name=poem["form"]).token] + tok.encode("".join(keywords_for(poem, tok))) + [SEP]
        ids += body[: _int(gen, 0, len(body))]
        with torch.no_grad():
            rows.append(model(torch.tensor([ids]))[0][0, -1].clone())
    return rows


def cases(gen):
    """39 个用例：(logits [V], temperature, top_k, top_p)。

    - 12 个真实分数（V = 6672）：6 种常用设置各一次，再 6 次随机设置；其中 2 行像受约束解码那样
      只留几个字（其余是 -inf），top_k 比留下的字还多；再 3 个真实分数上 top_p = 1（不截），其中一个 top_k 比 V 还大（全留）；
    - 8 个 top-k 的并列：分数是 -3…3 的整数，第 k 大的分数有好几个；
    - 10 个 top-p 的边界并列：m 个分数为 0 的字（m = 2、4、8，各占 1/m，编号随机散开），其余 ≤ -60；
      top_p 正好是 j/m，排在某个并列字前面的概率之和正好等于 p；
    - 6 个多于 16 个字的并列（m = 20–64）：p 落在并列的字中间，留下哪几个全看并列时是不是编号小的在前
      （torch.sort 不加 stable=True 时，16 个以上的并列会被打乱）。
    """
    out = []
    real = iter(_real_logits(33, gen))
    for i in range(12):
        logits = next(real)
        if i < 6:
            temperature, top_k, top_p = _SETTINGS[i]
            # 常用设置的 p 是定死的：挑一行离边界远的分数（边界上的并列另有专门的用例）
            while top_p is not None and (_reference_before(logits, temperature, top_k) - top_p).abs().min() < 1e-5:
                logits = next(real)
        else:
            temperature = [0.3, 0.7, 1.0, 1.3, 2.0][_int(gen, 0, 5)]
            top_k = [None, 0, 3, 20, 40, 10000][_int(gen, 0, 6)]
            top_p = _away_from_boundary(gen, logits, temperature, top_k)
        if i in (4, 9):  # 像句尾那样只留 3 个字；top_k 比留下的多
            allowed = torch.topk(logits, 12).indices[torch.randperm(12, generator=gen)[:3]]
            logits = torch.full_like(logits, float("-inf")).index_copy(0, allowed, logits[allowed])
            top_k = 40
            top_p = _away_from_boundary(gen, logits, temperature, top_k)
        out.append((logits, temperature, top_k, top_p))
    # top_p = 1 是“不截”（文档字符串写明 ≥ 1 不截）：真实的一行上，前面之和在 float32 里会累加到 1，
    # 拿 1 当普通的 p 去截（if top_p:）会丢掉几个到上千个分数有限的字
    out += [(next(real), 0.8, 40, 1.0), (next(real), 1.3, 0, 1.0), (next(real), 1.0, 10000, 1.0)]
    for _ in range(8):
        V = _int(gen, 5, 16)
        logits = torch.randint(-3, 4, (V,), generator=gen).float()
        k = _int(gen, 1, V)
        order = torch.sort(logits, descending=True, stable=True).indices
        logits[order[k]] = logits[order[k - 1]]  # 第 k+1 大与第 k 大并列（从 1 数）
        out.append((logits, [0.5, 1.0, 2.0][_int(gen, 0, 3)], k, [None, 0.6, 0.9][_int(gen, 0, 3)]))
    for i in range(10):
        m = [2, 4, 8][i % 3]
        V = m + _int(gen, 2, 12)
        logits = -60.0 - 20 * torch.rand(V, generator=gen)
        logits[torch.randperm(V, generator=gen)[:m]] = 0.0
        j = _int(gen, 1, m)
        top_k = None if i % 2 == 0 else _int(gen, 1, m + 1)  # 不超过并列的个数：top-k 把它们全留下
        out.append((logits, [1.0, 0.5, 0.25][_int(gen, 0, 3)], top_k, j / m))
    for i in range(6):  # 多于 16 个并列：不稳定的排序会把并列字的先后打乱（16 个以内它碰巧不乱）
        m = [20, 24, 32, 40, 64, 48][i]
        V = m + _int(gen, 2, 30)
        logits = -70.0 - 20 * torch.rand(V, generator=gen)
        logits[torch.randperm(V, generator=gen)[:m]] = 1.5
        j = _int(gen, 1, m)
        top_p = j / m if m in (32, 64) else (j + 0.5) / m  # 2 的幂：正好在边界上；否则在两个并列字正中间
        out.append((logits, [1.0, 0.5][i % 2], None if i % 3 else m + 5, top_p))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _kth_tie(case):
    """top-k 的并列：第 k 大与第 k+1 大的分数相等。"""
    logits, _, top_k, _ = case
    ranked = torch.sort(logits, descending=True).values
    return bool(top_k) and top_k < len(logits) and bool(ranked[top_k - 1] == ranked[top_k])


def _top_ties(case):
    """分数最高的字有几个并列。"""
    return int((case[0] == case[0].max()).sum())


KINDS = {
    "默认设置 0.8 / 40 / 0.95": lambda case, want: case[1:] == (0.8, 40, 0.95),
    "温度小于 1": lambda case, want: case[1] < 1,
    "温度等于 1": lambda case, want: case[1] == 1,
    "温度大于 1": lambda case, want: case[1] > 1,
    "top_k = None（不截）": lambda case, want: case[2] is None,
    "top_k = 0（不截）": lambda case, want: case[2] == 0,
    "top_k = 1": lambda case, want: case[2] == 1,
    "top_k 比 V 大（全留）": lambda case, want: case[2] is not None and case[2] > len(case[0]),
    "top_k 比留下的（有限的）字多": lambda case, want: bool(case[2]) and case[2] > int(torch.isfinite(case[0]).sum()),
    "top-k 的并列（与第 k 大相等的字都留下）": lambda case, want: _kth_tie(case),
    "top_p = None（不截）": lambda case, want: case[3] is None,
    "top_p = 1（不截）": lambda case, want: case[3] == 1.0,
    "top_p 正好落在边界上（前面之和 = p）": lambda case, want: (
        case[3] is not None
        and case[3] < 1
        and any(abs(case[3] * m - round(case[3] * m)) < 1e-9 and _top_ties(case) == m for m in (2, 4, 8, 32, 64))
    ),
    "多于 16 个字并列（排序要稳定）": lambda case, want: _top_ties(case) > 16,
    "已有 -inf 的行（受约束解码只留几个字）": lambda case, want: bool(torch.isinf(case[0]).any()),
}
