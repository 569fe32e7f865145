"""第 15 课补全练习：带掩码的交叉熵。修改 solve，保持下方检查不变。"""

import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(logits, targets, mask):
    """只在掩码为 True 的格子上算交叉熵的平均（奈特/字），从 log-softmax 自己算起。

    Args:
        logits: [B, T, V] 浮点：每个位置给 V 个候选字的分数；可能很大（上千），计算时不能溢出。
        targets: [B, T] long：每个位置的正确答案（下一个字的编号）。mask 为 False 的格子里可能是
            任何值，例如补齐用的 0，或 -100。
        mask: [B, T] bool：哪些格子计入损失（正文与 <eos>）。整批至少有一个 True；某一行可以一个都没有
            （比如整行都是补齐的格子）。

    Returns:
        0 维浮点张量：所有 True 格子上 −ln p(正确答案) 之和，除以 True 的个数。
        p 来自 log-softmax：每行先减去这一行的最大值，再减去 ln Σ exp。输入不改动。
    """
    z = logits[mask]  # [N, V]：只留计分的格子
    z = z - z.max(dim=-1, keepdim=True).values  # 每行减去最大值：exp 最大是 e^0 = 1，不会溢出
    log_probs = z - z.exp().sum(dim=-1, keepdim=True).log()  # log-softmax [N, V]
    picked = log_probs.gather(-1, targets[mask][:, None])  # [N, 1]：正确答案那一格的 ln p
    return -picked.sum() / mask.sum()  # 除以 True 的个数 N


if __name__ == "__main__":
    # 手算的小例子：B = 1，T = 2，V = 3
    logits = torch.tensor(
        [
            [
                [0.0, 0.0, 0.0],  # 三个字一样高：p = 1/3，−ln p = ln 3
                [math.log(3), 0.0, 0.0],
            ]
        ]
    )  # 第 0 个字 p = 3/(3+1+1) = 0.6
    targets = torch.tensor([[1, 0]])
    kept = logits.clone()
    got = solve(logits, targets, torch.tensor([[True, True]]))
    assert isinstance(got, torch.Tensor) and got.dim() == 0, "应返回 0 维张量（一个数），不是 Python 的 float 或一行"
    assert torch.equal(logits, kept), "solve 不应改动传进来的 logits：减最大值要得到新张量"
    assert abs(got.item() - (math.log(3) - math.log(0.6)) / 2) < 1e-5, (
        f"两格都计分时应为 (ln 3 + (−ln 0.6)) / 2 ≈ 0.8047，实际是 {got.item():.4f}"
    )
    got = solve(logits, targets, torch.tensor([[True, False]]))
    assert abs(got.item() - math.log(3)) < 1e-5, f"只有第 0 格计分时应为 ln 3 ≈ 1.0986，实际是 {got.item():.4f}"

    # 除以 True 的个数：第 0 行 1 格计分，第 1 行 3 格，第 2 行整行补齐
    logits = torch.zeros(3, 4, 3)  # 每格都是 ln 3
    logits[1, :, 0] = math.log(3)  # 第 1 行的正确答案 p = 0.6
    mask = torch.tensor([[True, False, False, False], [True, True, True, False], [False] * 4])
    targets = torch.full((3, 4), -100)
    targets[0, 0], targets[1, :3] = 2, 0
    want = (math.log(3) - 3 * math.log(0.6)) / 4
    got = solve(logits, targets, mask).item()
    assert abs(got - want) < 1e-5, (
        f"应为 4 个计分格子的平均 (ln 3 − 3 ln 0.6)/4 ≈ {want:.4f}，实际是 {got:.4f}（除以 B·T = 12，或先每行平均再平均，都不对）"
    )

    # 很大的 logits：不能溢出成 inf 或 nan
    got = solve(torch.tensor([[[1000.0, 0.0, -1000.0]]]), torch.tensor([[1]]), torch.tensor([[True]]))
    assert torch.isfinite(got) and abs(got.item() - 1000.0) < 1e-3, (
        f"logits [1000, 0, −1000]、正确答案是第 1 个字时应为 1000 奈特，实际是 {got.item()}（e^1000 会溢出：先减去每行的最大值）"
    )
    print("本课补全练习通过。")
