"""第 10 课补全练习：因果遮挡与 softmax 权重。修改 solve，保持下方检查不变。"""

import torch
from torch.nn import functional as F

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(scores):
    """把注意力分数变成因果注意力权重：遮住每个位置后面的位置，再在最后一维上做 softmax。

    Args:
        scores: 已缩放的注意力分数，形状 [T, T] 或 [B, T, T]；scores[..., t, s] 是位置 t 看位置 s 的注意力分数。

    Returns:
        与 scores 同形状的权重：s > t 的格子为 0，每一行（最后一维）之和为 1。
    """
    T = scores.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool, device=scores.device).tril()  # s ≤ t 为真
    return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)


if __name__ == "__main__":
    w = solve(torch.zeros(4, 4))
    assert w.shape == (4, 4), f"形状应为 (4, 4)，实际是 {tuple(w.shape)}"
    assert torch.equal(w.triu(1), torch.zeros(4, 4)), "对角线右上方（后文）的权重应全为 0"
    assert torch.allclose(w.sum(-1), torch.ones(4)), "每一行的权重之和应为 1"
    assert torch.allclose(w[3], torch.full((4,), 0.25)), "注意力分数全相同时，第 3 行应平均分给位置 0–3"
    scores = torch.randn(2, 5, 5)
    kept = scores.clone()
    w = solve(scores)
    assert torch.equal(scores, kept), (
        "solve 不应改动传进来的注意力分数（masked_fill_ 会原地改）：用 masked_fill 得到新张量"
    )
    assert w.dtype == scores.dtype, f"权重应和注意力分数一样是 {scores.dtype}，实际是 {w.dtype}"
    assert w.shape == (2, 5, 5), f"[B, T, T] 的输入应得到同形状的输出，实际是 {tuple(w.shape)}"
    assert torch.equal(w.triu(1), torch.zeros(2, 5, 5)), "带批维度时，后文的权重也应全为 0"
    assert torch.allclose(w.sum(-1), torch.ones(2, 5)), "带批维度时，每一行的权重之和也应为 1"
    assert torch.equal(w[:, 0, 0], torch.ones(2)), "位置 0 只能看自己，权重应为 1"
    print("本课补全练习通过。")
