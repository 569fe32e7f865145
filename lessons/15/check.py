"""第 15 课差分检查：随机的 logits、目标与掩码（含真实诗的掩码），比较两边的带掩码交叉熵。"""

import torch

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；注释与字符串不算；见 grading.rule_problem）。
# 拦的是一族捷径：它们各自一步做完了“减去每行最大值、减去 ln Σ exp、取出正确答案那一格”中的一段或全部——
# cross_entropy / CrossEntropyLoss、nll_loss / NLLLoss（还有 gaussian_nll_loss 这些）、log_softmax / LogSoftmax
# （含 torch.special.log_softmax 与张量方法 .log_softmax）、logsumexp、torch.distributions 里分布对象的 log_prob。
_WHY = "本课要从 log-softmax 自己算起（每行减去最大值、再减去 ln Σ exp）：不要用 {}，它替你做完了本课要练的那一步"
FORBIDDEN = {
    name: _WHY.format(name)
    for name in (
        "cross_entropy",
        "crossentropy",
        "nll",
        "log_softmax",
        "logsoftmax",
        "logsumexp",
        "log_prob",
        "distributions",
    )
}
FORBIDDEN["poetry_gpt"] = "本课要从 log-softmax 自己算起：不要调用课程包 poetry_gpt 里现成的交叉熵"
# 源码规则之外的第二道关：差分检查时这些函数与算子换成绊线，不论怎样拼出名字，碰上就不通过（见 runner.install_tripwires）
TRIPWIRES = (
    "aten::_log_softmax",
    "aten::logsumexp",
    "aten::nll_loss_forward",
    "aten::nll_loss2d_forward",
    "aten::_scaled_dot_product_flash_attention_for_cpu",  # 交回的第二项就是每行的 logsumexp
    "torch.nn.functional.cross_entropy",
    "torch.nn.functional.nll_loss",
    "torch.nn.functional.log_softmax",
    "torch.log_softmax",
    "torch.Tensor.log_softmax",
    "torch.logsumexp",
    "torch.Tensor.logsumexp",
    "torch.special.log_softmax",
    "torch.special.logsumexp",
)


def _real_batch(gen, n):
    """val 里随机 n 首真诗的 (目标, 掩码)：条件区与补齐的格子为 False，各行计分的格子数不同。"""
    from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch

    poems = load_poems("val")
    picks = torch.randint(0, len(poems), (n,), generator=gen).tolist()
    tok = default_tokenizer()
    _, y, mask = make_batch([encode_sample(poems[i], tok) for i in picks])
    return y, mask, len(tok)


def cases(gen):
    """24 个用例：(logits [B,T,V], targets [B,T], mask [B,T])，按顺序轮换四种：

    0. 真诗：val 里 2 首诗的目标与掩码，V = 汉字表大小；不计分的格子一半用例是补齐的 0，一半是 -100；
    1. 各行计分的格子数不同，常有整行都不计分的行（除以 B·T 或先每行平均都会错）；
    2. 很大的 logits（尺度 100–3000）：不先减去每行最大值就会溢出，先 softmax 再取对数会得到 −inf；
    3. 整批只有一个格子计分。
    """
    out = []
    for i in range(24):
        kind = i % 4
        if kind == 0:
            targets, mask, V = _real_batch(gen, 2)
            if i % 8 == 4:
                targets = targets.masked_fill(~mask, -100)
            B, T = targets.shape
            out.append((2 * torch.randn(B, T, V, generator=gen), targets, mask))
            continue
        B, T, V = (int(torch.randint(lo, hi, (1,), generator=gen)) for lo, hi in ((2, 6), (3, 9), (2, 13)))
        mask = torch.rand(B, T, generator=gen) < torch.rand(B, 1, generator=gen)  # 每行计分的比例不同
        mask[torch.rand(B, generator=gen) < 0.3] = False  # 整行不计分
        if kind == 3:
            mask[:] = False
        if not mask.any() or kind == 3:
            mask[int(torch.randint(0, B, (1,), generator=gen)), int(torch.randint(0, T, (1,), generator=gen))] = True
        targets = torch.randint(0, V, (B, T), generator=gen).masked_fill(~mask, -100)
        scale = float(100 * 30 ** torch.rand(1, generator=gen)) if kind == 2 else 3.0
        out.append((scale * torch.randn(B, T, V, generator=gen), targets, mask))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "真诗的掩码（V = 汉字表大小）": lambda case, want: case[0].shape[-1] > 1000,
    "不计分的格子是补齐的 0": lambda case, want: bool(((~case[2]) & (case[1] == 0)).any()),
    "不计分的格子是 -100": lambda case, want: bool(((~case[2]) & (case[1] == -100)).any()),
    "各行计分的格子数不同": lambda case, want: len(set(case[2].sum(dim=1).tolist())) > 1,
    "整行都不计分": lambda case, want: bool((case[2].sum(dim=1) == 0).any()),
    "上千的大分数": lambda case, want: float(case[0].abs().max()) > 1000,
    "整批只有一个格子计分": lambda case, want: int(case[2].sum()) == 1,
}
