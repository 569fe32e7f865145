"""第 17 课差分检查：随机的小模型参数与批（含真诗），在不裁剪、只有按总范数才裁剪、大幅裁剪三种情形下比较一步训练。"""

import torch
from torch.nn import functional as F

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；注释与字符串不算；见 grading.rule_problem）。
# 拦的是一族捷径：torch.nn.utils 里的 clip_grad_norm_、clip_grad_value_、clip_grads_with_norm_（片段 clip_grad），
# 和替你算总范数的 get_total_norm（片段 total_norm）。自己把各参数的梯度拼成一个向量再求范数是允许的：那正是本课的“总范数”。
FORBIDDEN = {
    name: f"本课要自己按总范数裁剪：不要用 torch 里的 {name} 一族，它替你算了总范数、做完了裁剪"
    for name in ("clip_grad", "total_norm")
}
FORBIDDEN["poetry_gpt"] = "本课要自己按总范数裁剪：不要调用课程包 poetry_gpt 里现成的训练步"
# 源码规则之外的第二道关：差分检查时这些函数换成绊线（见 runner.install_tripwires）
TRIPWIRES = (
    "torch.nn.utils.clip_grad_norm_",
    "torch.nn.utils.clip_grad_value_",
    "torch.nn.utils.get_total_norm",
    "torch.nn.utils.clip_grads_with_norm_",
)


def _grad_norms(params, ids, targets):
    """与练习里的 tiny_model 相同的一步前向与反向，返回每个参数的梯度范数（用来挑 max_norm）。"""
    characters, positions, mix = (p.clone().requires_grad_() for p in params)
    hidden = torch.tanh((characters[ids] + positions[: ids.shape[1]]) @ mix)
    F.cross_entropy((hidden @ characters.T).flatten(0, 1), targets.flatten(), ignore_index=-100).backward()
    return [float(p.grad.norm()) for p in (characters, positions, mix)]


def _real_batch(gen):
    """val 里随机 3 首真诗的 (输入, 目标)：条件区与补齐的目标换成 -100。"""
    from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch

    poems = load_poems("val")
    tok = default_tokenizer()
    picks = torch.randint(0, len(poems), (3,), generator=gen).tolist()
    x, y, mask = make_batch([encode_sample(poems[i], tok) for i in picks])
    return x, y.masked_fill(~mask, -100), len(tok)


def cases(gen):
    """24 个用例：(params, ids, targets, lr, max_norm)，params = [characters, positions, mix]。

    每 4 个一轮：0 真诗的批（V = 汉字表大小，C = 8）；其余是小的随机批（V、C、T 随机，约三成目标为 -100）。
    max_norm 按这组梯度挑，轮换三种：不裁剪（上限是总范数的 1.5–3 倍）；只有按总范数才裁剪
    （上限在“最大的单个参数范数”与总范数之间，逐个参数各自裁剪的话一个都不裁）；大幅裁剪（上限远小于总范数）。
    """
    out = []
    for i in range(24):
        if i % 4 == 0:
            ids, targets, V = _real_batch(gen)
            C, L = 8, 64
        else:
            B, T, V, C = (
                int(torch.randint(lo, hi, (1,), generator=gen)) for lo, hi in ((1, 5), (2, 9), (3, 20), (2, 9))
            )
            L = T + int(torch.randint(0, 4, (1,), generator=gen))
            ids = torch.randint(0, V, (B, T), generator=gen)
            targets = torch.randint(0, V, (B, T), generator=gen)
            targets[torch.rand(B, T, generator=gen) < 0.3] = -100
            targets[0, 0] = int(torch.randint(0, V, (1,), generator=gen))  # 至少一个计分的格子
        scale = 0.2 + 1.5 * float(torch.rand(1, generator=gen))
        params = [
            scale * torch.randn(V, C, generator=gen),
            scale * torch.randn(L, C, generator=gen),
            torch.randn(C, C, generator=gen) / C**0.5,
        ]
        norms = _grad_norms(params, ids, targets)
        total = sum(n * n for n in norms) ** 0.5
        kind = (i // 4 + i) % 3
        if kind == 0:
            max_norm = total * (1.5 + 1.5 * float(torch.rand(1, generator=gen)))
        elif kind == 1:
            max_norm = (max(norms) + total) / 2
        else:
            max_norm = 0.3 * min(norms)
        lr = (0.1, 0.5, 1.0)[i % 3]
        out.append((params, ids, targets, lr, max_norm))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _clipping(case):
    """(最大的单个参数梯度范数, 总范数, max_norm)。"""
    params, ids, targets, _, max_norm = case
    norms = _grad_norms(params, ids, targets)
    return max(norms), sum(n * n for n in norms) ** 0.5, max_norm


KINDS = {
    "真诗的批（V = 汉字表大小）": lambda case, want: case[0][0].shape[0] > 1000,
    "目标里有 -100": lambda case, want: bool((case[2] == -100).any()),
    "不裁剪（总范数不超过上限）": lambda case, want: _clipping(case)[1] <= case[4],
    "只有按总范数才裁剪（每个参数各自都不超过上限）": lambda case, want: (
        _clipping(case)[0] <= case[4] < _clipping(case)[1]
    ),
    "大幅裁剪（上限比每个参数的范数都小）": lambda case, want: case[4] < _clipping(case)[0],
    "lr = 1": lambda case, want: case[3] == 1.0,
}
