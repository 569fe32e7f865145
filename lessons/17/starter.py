"""第 17 课补全练习：带梯度裁剪的一步训练。修改 solve，保持下方检查不变。"""

import torch
from torch.nn import functional as F

torch.set_num_threads(2)
torch.manual_seed(26)


def tiny_model(params, ids):
    """练习用的小模型（不用改）：字向量表加位置表，过一层 tanh，再乘回字向量表（输入输出共享表）。

    params = [characters [V, C], positions [L, C], mix [C, C]]；ids [B, T] → logits [B, T, V]。
    """
    characters, positions, mix = params
    hidden = characters[ids] + positions[: ids.shape[1]]  # [B, T, C]
    hidden = torch.tanh(hidden @ mix)  # [B, T, C]
    return hidden @ characters.T  # [B, T, V]


def solve(params, ids, targets, lr, max_norm):
    """用 tiny_model 做一步训练：前向 → 交叉熵 → 反向 → 按梯度总范数裁剪 → SGD 更新。

    Args:
        params: 参数列表 [characters, positions, mix]（普通张量，不带梯度）。不要改动它们：在副本上训练。
        ids: [B, T] 输入编号；targets: [B, T] 下一个字的编号，不计分的格子是 -100。
        lr: 学习率（SGD：参数 ← 参数 − lr × 梯度）。
        max_norm: 梯度总范数的上限。

    Returns:
        (loss, total_norm, new_params)：
        - loss：这一步的交叉熵（Python float，计分格子上的平均）；
        - total_norm：裁剪之前的梯度总范数 √(所有参数的所有梯度的平方和)（Python float）；
        - new_params：更新后的参数列表（新张量）。总范数大于 max_norm 时，所有梯度一起乘以
          max_norm / (total_norm + 1e-6) 再更新；不大于时梯度原样使用。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 17 检查；卡住时运行 ./poet hint 17 看提示。")


if __name__ == "__main__":
    # 手算的小例子：V = 2，C = 1，一个位置。characters = [[1], [0]]，positions = [[0]]，mix = [[1]]
    params = [torch.tensor([[1.0], [0.0]]), torch.tensor([[0.0]]), torch.tensor([[1.0]])]
    kept = [p.clone() for p in params]
    ids, targets = torch.tensor([[0]]), torch.tensor([[1]])
    loss, norm, new = solve(params, ids, targets, 1.0, 1e6)  # 上限很大：不裁剪
    assert isinstance(loss, float) and isinstance(norm, float), "loss 与 total_norm 应是 Python 的 float（用 .item()）"
    assert all(torch.equal(p, k) for p, k in zip(params, kept)), "solve 不应改动传进来的参数：在副本上训练"
    # h = tanh(1) ≈ 0.7616，logits = [h, 0]，正确答案是第 1 个字：loss = ln(1 + e^h) ≈ 1.1449
    assert abs(loss - 1.1449) < 1e-3, f"这一步的交叉熵应约为 1.1449，实际是 {loss}"
    # 梯度：characters [[0.8055], [−0.5192]]（范数 0.9584），positions [[0.2863]]，mix [[0.2863]]
    assert abs(norm - 1.0404) < 1e-3, (
        f"梯度总范数应约为 √(0.8055² + 0.5192² + 0.2863² + 0.2863²) ≈ 1.0404，实际是 {norm}"
    )
    want = [torch.tensor([[0.1945], [0.5192]]), torch.tensor([[-0.2863]]), torch.tensor([[0.7137]])]
    assert len(new) == 3 and all(torch.allclose(n, w, atol=1e-3) for n, w in zip(new, want)), (
        f"lr = 1、不裁剪时，新参数应约为 {[w.tolist() for w in want]}，实际是 {[n.tolist() for n in new]}"
    )
    # 上限 1.0：每个参数自己的梯度范数都不到 1（最大 0.9584），可合在一起是 1.0404，超过了
    _, norm_again, clipped = solve(params, ids, targets, 1.0, 1.0)
    assert abs(norm_again - norm) < 1e-6, "total_norm 是裁剪之前的范数"
    for p, n, c in zip(params, new, clipped):
        assert torch.allclose(c, p - (p - n) / norm, atol=1e-5), (
            "总范数 1.0404 超过上限 1.0：所有梯度要一起乘以 1.0 / 1.0404；逐个参数各自裁剪的话，这里一个都不会被裁"
        )
    _, _, unclipped = solve(params, ids, targets, 1.0, 2.0)  # 上限 2.0：没超过，梯度原样使用
    assert all(torch.allclose(u, n) for u, n in zip(unclipped, new)), "总范数不超过上限时不裁剪（也不放大）"
    print("本课补全练习通过。")
