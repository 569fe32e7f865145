"""第 20 课差分检查：随机的与随课程发布的模型真实的 q、k、v，缓存里有 0 到 63 个位置，比较新位置的注意力输出与接好的缓存。"""

import torch

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {"poetry_gpt": "本课要自己在缓存上算注意力：不要调用课程包 poetry_gpt 里现成的 CausalAttention、KVCache"}
# 缓存空着（past = 0）时直接交回 k、v 本身也算不对：docstring 说“都是新张量”，调用者之后改缓存会连输入一起改掉
FRESH_RESULT = True


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _random(gen, kind):
    """随机的一头：kind 0 第一次调用（缓存空，T 个位置一起送）；1 逐字生成（T = 1，缓存里 1–40 个）；
    2 缓存接着送一段（T = 2–6，缓存里 1–20 个：新块里面也要遮挡）；3 课程的真实尺寸，正好写到第 64 个位置。"""
    D = _int(gen, 1, 9) if kind != 3 else 32
    past, T = {0: (0, _int(gen, 1, 8)), 1: (_int(gen, 1, 41), 1), 2: (_int(gen, 1, 21), _int(gen, 2, 7)), 3: (63, 1)}[
        kind
    ]
    scale = [0.5, 1.0, 3.0][_int(gen, 0, 3)]
    q, k, v = (scale * torch.randn(T, D, generator=gen) for _ in range(3))
    past_keys, past_values = (scale * torch.randn(past, D, generator=gen) for _ in range(2))
    return q, k, v, past_keys, past_values


def _real(gen, n):
    """随课程发布的模型第 0 层某个头在 val 真诗上的 q、k、v（[序列, D]），切成“缓存里的前文 + 新来的几个”。"""
    from poetry_gpt.checkpoint import load_model
    from poetry_gpt.data import default_tokenizer, encode_sample, load_poems

    model, _ = load_model()
    tok = default_tokenizer()
    poems = load_poems("val")
    attention = model.blocks[0].attention
    out = []
    for _ in range(n):
        ids = torch.tensor([encode_sample(poems[_int(gen, 0, len(poems))], tok)[:-1]])
        with torch.no_grad():
            x = model.blocks[0].norm1(model.characters(ids) + model.positions(torch.arange(ids.shape[1])))
            q, k, v = (
                attention.split_heads(t)[0, _int(gen, 0, attention.n_heads)].clone()
                for t in attention.qkv(x).split(x.shape[-1], dim=2)
            )
        S = q.shape[0]
        past = _int(gen, 0, S)
        T = 1 if _int(gen, 0, 2) else _int(gen, 1, S - past + 1)
        out.append(
            (
                q[past : past + T].clone(),
                k[past : past + T].clone(),
                v[past : past + T].clone(),
                k[:past].clone(),
                v[:past].clone(),
            )
        )
    return out


def cases(gen):
    """24 个用例：(q [T,D], k [T,D], v [T,D], past_keys [past,D], past_values [past,D])。

    16 个随机的头，四种轮换：第一次调用（缓存空）；逐字生成（T = 1）；缓存之后再送一段（T ≥ 2，新块里面也要遮挡）；
    真实尺寸（D = 32，缓存里已有 63 个位置，写第 64 个）；8 个随课程发布的模型第 0 层的真实 q、k、v，
    取自一首 val 诗（条件区加正文），在随机的一处切开。
    """
    out = [_random(gen, i % 4) for i in range(16)]
    return out + _real(gen, 8)


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "第一次调用（缓存空，一段一起送）": lambda case, want: case[3].shape[0] == 0 and case[0].shape[0] > 1,
    "逐字生成（T = 1，缓存里已有）": lambda case, want: case[0].shape[0] == 1 and case[3].shape[0] > 0,
    "缓存之后再送一段（T ≥ 2：新块里面也要遮挡）": lambda case, want: case[0].shape[0] > 1 and case[3].shape[0] > 0,
    "课程的真实尺寸（D = 32，写第 64 个位置）": lambda case, want: case[0].shape[1] == 32 and case[3].shape[0] == 63,
}
