"""第 02 课补全练习：一次广播相加与变形。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(logits, bias):
    """给每个位置的分数加上同一行偏置，再摊平成交叉熵要的二维形状。

    第 22 课“守住格式”就是这样给分数加一行 [V]（不许出现的字加 -inf）；
    第 15 课算交叉熵前，也要把 [B, T, V] 摊平成 [B*T, V]。

    Args:
        logits: 分数，形状 [B, T, V]；不一定是连续张量。
        bias: 偏置，形状 [V]；每一句的每个位置都加同一行。

    Returns:
        形状 [B*T, V] 的张量：第 b*T + t 行是 logits[b, t] + bias。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 2 检查；卡住时运行 ./poet hint 2 看提示。")


if __name__ == "__main__":
    logits = torch.arange(24.0).view(2, 3, 4)  # B=2, T=3, V=4
    bias = torch.tensor([0.0, 10.0, 0.0, float("-inf")])
    y = solve(logits, bias)
    assert y.shape == (6, 4), f"形状应为 (6, 4)，实际是 {tuple(y.shape)}"
    assert y.dtype == torch.float32, f"结果应和 logits 一样是 float32，实际是 {y.dtype}"
    assert torch.equal(logits, torch.arange(24.0).view(2, 3, 4)), "solve 不应改动传进来的 logits：返回一个新张量"
    assert torch.equal(y[4], logits[1, 1] + bias), "第 b*T + t 行应是 logits[b, t] + bias"
    assert torch.equal(y[:, 3], torch.full((6,), float("-inf"))), "偏置为 -inf 的那一列应全是 -inf"
    turned = torch.arange(24.0).view(2, 4, 3).transpose(1, 2)  # 形状 [2, 3, 4]，但不连续
    try:
        z = solve(turned, torch.zeros(4))
    except RuntimeError as e:
        raise AssertionError("不连续的 logits 不能用 view 摊平，请改用 reshape") from e
    assert torch.equal(z[0], turned[0, 0]) and torch.equal(z[5], turned[1, 2]), "摊平后的行序应是 b*T + t"
    print("本课补全练习通过。")
