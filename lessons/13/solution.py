"""第 13 课补全练习：层归一化 LayerNorm。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(x, weight, bias, eps):
    """在最后一维上做层归一化（Ba et al., "Layer Normalization", 2016）。

    Args:
        x: [..., C]，例如 [B, T, C]；每个位置的 C 个数单独归一化。
        weight: [C]，归一化之后逐列相乘；bias: [C]，再逐列相加。
        eps: 加在方差上的小正数，防止除以 0。

    Returns:
        与 x 同形状：(x - 均值) / sqrt(方差 + eps) * weight + bias。方差除以 C（不是 C-1），
        与 nn.LayerNorm 相同。
    """
    mean = x.mean(-1, keepdim=True)  # [..., 1]
    var = ((x - mean) ** 2).mean(-1, keepdim=True)  # [..., 1]，除以 C
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


if __name__ == "__main__":
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    y = solve(x, torch.ones(4), torch.zeros(4), 0.0)
    assert tuple(y.shape) == (1, 4), f"形状应为 (1, 4)，实际是 {tuple(y.shape)}"
    assert torch.allclose(y, torch.tensor([[-1.3416, -0.4472, 0.4472, 1.3416]]), atol=1e-4), (
        f"[1, 2, 3, 4] 归一化后应约为 [-1.3416, -0.4472, 0.4472, 1.3416]（方差除以 C=4），实际是 {y.tolist()}"
    )
    y = solve(x, torch.full((4,), 2.0), torch.full((4,), 0.5), 0.0)
    assert torch.allclose(y, torch.tensor([[-2.1833, -0.3944, 1.3944, 3.1833]]), atol=1e-4), (
        "归一化之后再乘 weight、加 bias"
    )
    assert torch.allclose(solve(torch.zeros(2, 3), torch.ones(3), torch.zeros(3), 1e-5), torch.zeros(2, 3)), (
        "全是同一个数时方差为 0：靠 eps 避免除以 0，结果应为 0"
    )
    x = 3 + 5 * torch.randn(2, 7, 16)
    kept = x.clone()
    w, b = torch.randn(16), torch.randn(16)
    want = torch.nn.functional.layer_norm(x, (16,), w, b, 1e-5)
    assert torch.allclose(solve(x, w, b, 1e-5), want, atol=1e-4), "[B, T, C] 的输入：每个位置在最后一维上单独归一化"
    assert torch.equal(x, kept), "solve 不应改动传进来的 x（x -= … 会原地改）：算出新张量"
    # 这一课要你亲手写出层归一化的每一步；库函数一步做完，练不到本课的东西
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(solve))  # 读语法树：注释不在里面，文档字符串与字符串只是常量，不是名字
    used = [getattr(n, k) for n in ast.walk(tree) for k in ("attr", "id", "name") if isinstance(getattr(n, k, 0), str)]
    for shortcut in ("layer_norm", "layernorm"):
        assert not any(shortcut in name.lower() for name in used), (
            f"请不要调用 {shortcut}：本课练的是自己求均值、方差，再缩放平移"
        )
    print("本课补全练习通过。")
