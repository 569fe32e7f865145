"""第 20 课补全练习：带 KV 缓存的一步注意力。修改 solve，保持下方检查不变。"""

import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(q, k, v, past_keys, past_values):
    """一个注意力头在 KV 缓存上算新来的 T 个位置：接上缓存，只算新位置那几行，结果与整段重算相同。

    缓存里已有 past = past_keys.shape[0] 个位置（第 0 … past − 1 个，从 0 数）；新来的 T 个字在第
    past … past + T − 1 个位置。第 past + t 个位置只能看第 0 … past + t 个位置（因果遮挡，第 10 课）：
    在 S × S（S = past + T）的下三角可看表里，它们是第 past 到 past + T − 1 行，也就是 causal[past:past + T, :S]。

    Args:
        q, k, v: [T, D] 浮点张量，新来的 T 个位置（T ≥ 1）的 query、key、value。
        past_keys, past_values: [past, D]，缓存里前文各位置的 key、value；past 可以是 0（第一次调用，缓存是空的）。

    Returns:
        (out, keys, values)：
        - keys、values：[S, D]，缓存接上新位置之后的样子（前文在前，新位置在后）；
        - out：[T, D]，新位置的注意力输出 softmax(遮挡后的 q @ keysᵀ / √D) @ values。
        都是新张量；输入不改动。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 20 检查；卡住时运行 ./poet hint 20 看提示。")


if __name__ == "__main__":
    ln3 = math.log(3)
    empty = torch.zeros(0, 1)
    # 第一次调用：缓存是空的，一次送进 2 个位置。第 0 个只看自己，第 1 个看两个（权重 1/4、3/4）
    q, k, v = torch.tensor([[1.0], [1.0]]), torch.tensor([[0.0], [ln3]]), torch.tensor([[4.0], [0.0]])
    kept = [t.clone() for t in (q, k, v)]
    out, keys, values = solve(q, k, v, empty, empty)
    assert isinstance(out, torch.Tensor) and out.shape == (2, 1), (
        f"out 的形状应为 [T, D] = [2, 1]，实际是 {getattr(out, 'shape', out)}"
    )
    assert torch.allclose(out, torch.tensor([[4.0], [1.0]]), atol=1e-5), (
        f"第 0 个位置只能看自己（输出 4），第 1 个位置看两个、权重 1/4 与 3/4（输出 1）；实际是 {out.flatten().tolist()}"
    )
    assert torch.equal(keys, k) and torch.equal(values, v), "缓存是空的：接上之后 keys、values 就是这次的 k、v"
    assert all(torch.equal(a, b) for a, b in zip((q, k, v), kept)), "不要改动传进来的 q、k、v"
    # 缓存里已有 1 个位置，再送 2 个：它们在第 1、2 个位置，第 1 个看 0–1，第 2 个看 0–2
    past_keys, past_values = torch.tensor([[0.0]]), torch.tensor([[4.0]])
    out, keys, values = solve(
        torch.tensor([[1.0], [1.0]]), torch.tensor([[ln3], [ln3]]), torch.zeros(2, 1), past_keys, past_values
    )
    assert torch.allclose(out, torch.tensor([[1.0], [4 / 7]]), atol=1e-5), (
        f"新位置在第 1、2 个位置（past = 1）：第 1 个看两个位置（权重 1/4、3/4，输出 1），第 2 个看三个"
        f"（权重 1/7、3/7、3/7，输出 4/7 ≈ 0.5714）；实际是 {out.flatten().tolist()}。遮挡要取 causal[past:past+T, :S]"
    )
    assert torch.allclose(keys.flatten(), torch.tensor([0.0, ln3, ln3])) and values.flatten().tolist() == [
        4.0,
        0.0,
        0.0,
    ], "keys、values 是缓存接上新位置：前文在前，新位置在后"
    # 分几次送和一次送完，结果一样：这就是 KV 缓存省下整段重算的原因
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(5, 4, generator=g) for _ in range(3))
    whole, _, _ = solve(q, k, v, torch.zeros(0, 4), torch.zeros(0, 4))
    first, keys, values = solve(q[:2], k[:2], v[:2], torch.zeros(0, 4), torch.zeros(0, 4))
    parts = [first]
    for t in range(2, 5):  # 之后逐字送：每次 T = 1
        out, keys, values = solve(q[t : t + 1], k[t : t + 1], v[t : t + 1], keys, values)
        parts.append(out)
    assert torch.allclose(torch.cat(parts), whole, atol=1e-5), "先送 2 个、再逐字送 3 个，应与一次送 5 个的输出相同"
    print("本课补全练习通过。")
