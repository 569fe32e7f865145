"""第 09 课补全练习：给一段新字选出位置表的行并加上去。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(words, positions, past):
    """给从位置 past 开始的一段字加上各自位置的那一行（与 PoetryGPT.embed 相同）。

    生成时前面 past 个位置已经算过（第 20 课的 KV 缓存），这次只送进 T 个新字：
    它们在整条序列里的位置是 past, past+1, …, past+T-1。

    Args:
        words: 这 T 个新字的字向量，形状 [B, T, C]。
        positions: 整张位置表，形状 [L, C]；第 p 行属于位置 p，L 是前文长度。
        past: 前面已经有几个位置（整数，≥ 0）。

    Returns:
        新的张量 [B, T, C]：第 t 个新字加上位置表的第 past + t 行。words 和 positions 不改动。

    Raises:
        ValueError: past + T 超过 L——位置表没有那么多行，不能悄悄截断。
    """
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError(f"输入有 {past + T} 个位置，超过了位置表的 {positions.shape[0]} 行")
    return words + positions[past : past + T]  # [B,T,C] + [T,C]：选出的行沿批维度广播


if __name__ == "__main__":
    # 手算的小例子：宽度 C = 2，位置表只有 3 行
    table = torch.tensor(
        [
            [0.1, 0.2],  # 位置 0
            [0.0, 0.3],  # 位置 1
            [-0.2, 0.1],
        ]
    )  # 位置 2
    spring = torch.tensor([0.5, -1.0])  # “春”的字向量
    words = spring.repeat(1, 2, 1)  # [1, 2, 2]：“春春”，从位置 0 开始
    kept = words.clone()
    got = solve(words, table, 0)
    assert got.shape == (1, 2, 2), f"形状应为 (1, 2, 2)，实际是 {tuple(got.shape)}"
    assert torch.allclose(got[0, 0], torch.tensor([0.6, -0.8])), (
        f"位置 0 的“春”应是 [0.5+0.1, -1.0+0.2] = [0.6, -0.8]，实际是 {got[0, 0].tolist()}"
    )
    assert torch.allclose(got[0, 1], torch.tensor([0.5, -0.7])), (
        f"位置 1 的“春”应是 [0.5+0.0, -1.0+0.3] = [0.5, -0.7]，实际是 {got[0, 1].tolist()}"
    )
    assert torch.equal(words, kept), "solve 不应改动传进来的 words：返回一个新张量"
    got = solve(spring.view(1, 1, 2), table, 2)  # 前面已有 2 个位置，这个“春”在位置 2
    assert torch.allclose(got[0, 0], torch.tensor([0.3, -0.9])), (
        f"past=2 时这个字在位置 2，应加第 2 行，得 [0.3, -0.9]，实际是 {got[0, 0].tolist()}"
    )
    try:
        solve(words, table, 2)  # 位置 2、3：表里没有第 3 行
    except ValueError:
        pass
    else:
        raise AssertionError("past + T 超过位置表的行数时应 raise ValueError，不能悄悄截断")
    print("本课补全练习通过。")
