"""第 07 课补全练习：加 k 平滑的二元表。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(pair_counts, k):
    """把二元计数表变成加 k 平滑后的概率表。

    Args:
        pair_counts: [V, V] 的整数张量，pair_counts[i, j] 是“i 后面紧跟 j”在训练集里出现的次数。
        k: 平滑量，> 0；每个格子先加上 k 再归一。

    Returns:
        [V, V] 的 float32 张量 P（模型里的概率都是 float32），P[i, j] = (c[i, j] + k) / (Σ_j c[i, j] + k·V)；
        每一行加起来是 1。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 7 检查；卡住时运行 ./poet hint 7 看提示。")


if __name__ == "__main__":
    counts = torch.tensor([[0, 3, 1], [2, 0, 0], [0, 0, 0]])
    probs = solve(counts, 1.0)
    assert probs.shape == (3, 3), f"形状应为 (3, 3)，实际是 {tuple(probs.shape)}"
    assert probs.dtype == torch.float32, f"概率表应是 float32 张量（整数计数先 .float()），实际是 {probs.dtype}"
    assert torch.allclose(probs.sum(dim=1), torch.ones(3)), "每一行加起来应是 1"
    assert torch.allclose(probs[0], torch.tensor([1 / 7, 4 / 7, 2 / 7])), (
        f"第 0 行应是 (c + 1) / (4 + 3)，实际是 {probs[0]}"
    )
    assert torch.allclose(probs[2], torch.full((3,), 1 / 3)), "一次都没出现过的行，平滑后是均匀分布"
    assert torch.allclose(solve(counts, 0.5)[1], torch.tensor([2.5, 0.5, 0.5]) / 3.5), "k 要用参数，不要写死"
    print("本课补全练习通过。")
