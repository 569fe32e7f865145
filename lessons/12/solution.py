"""第 12 课补全练习：前馈网络的前向计算。修改 solve，保持下方检查不变。"""

import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(x, up_weight, up_bias, down_weight, down_bias):
    """逐位置的前馈网络：放宽 → 精确 GELU → 收回。

    Args:
        x: [..., C]，例如 [B, T, C]；每个位置单独计算。
        up_weight: [4C, C]，up_bias: [4C]（与 nn.Linear(C, 4C) 的 weight、bias 同形状）。
        down_weight: [C, 4C]，down_bias: [C]。

    Returns:
        [..., C]：down(GELU(up(x)))。GELU 用精确形式 0.5·h·(1 + erf(h/√2))，不用 tanh 近似，
        也不调用 F.gelu、nn.Linear。
    """
    h = x @ up_weight.T + up_bias  # [..., 4C]
    h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))  # GELU：h 乘以标准正态分布函数 Φ(h)
    return h @ down_weight.T + down_bias  # [..., C]


if __name__ == "__main__":
    C = 4
    up, down = torch.nn.Linear(C, 4 * C), torch.nn.Linear(4 * C, C)
    x = torch.randn(2, 3, C)
    y = solve(x, up.weight, up.bias, down.weight, down.bias)
    assert tuple(y.shape) == (2, 3, C), f"输出形状应为 (2, 3, {C})，实际是 {tuple(y.shape)}"
    want = down(torch.nn.functional.gelu(up(x)))
    assert torch.allclose(y, want, atol=1e-5), "结果应等于 down(gelu(up(x)))；检查转置和偏置"
    eye = torch.eye(1)
    one = solve(torch.tensor([[1.0]]), eye, torch.zeros(1), eye, torch.zeros(1))
    assert abs(one.item() - 0.841345) < 1e-5, f"GELU(1) 应约为 0.841345（精确形式），实际是 {one.item():.6f}"
    neg = solve(torch.tensor([[-1.0]]), eye, torch.zeros(1), eye, torch.zeros(1))
    assert abs(neg.item() + 0.158655) < 1e-5, f"GELU(-1) 应约为 -0.158655：负数不是直接变 0，实际是 {neg.item():.6f}"
    assert torch.allclose(solve(x[0, 1], up.weight, up.bias, down.weight, down.bias), y[0, 1], atol=1e-6), (
        "逐位置：单独算一个位置 [C] 应与整批里那个位置的结果相同"
    )
    # 这一课要你亲手写出 GELU 和两个线性层；库函数一步做完，练不到本课的东西
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(solve))  # 读语法树：注释不在里面，文档字符串与字符串只是常量，不是名字
    used = [getattr(n, k) for n in ast.walk(tree) for k in ("attr", "id", "name") if isinstance(getattr(n, k, 0), str)]
    for shortcut in ("gelu", "linear"):
        assert not any(shortcut in name.lower() for name in used), (
            f"请不要调用 {shortcut}：本课练的是用矩阵乘法和 torch.erf 写出 MLP 的每一步"
        )
    print("本课补全练习通过。")
