"""第 11 课补全练习：拆分与合并注意力头。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(t, n_heads):
    """按输入的维数决定方向：三维就拆头，四维就合头。

    Args:
        t: [B, T, C] 时拆成 n_heads 个头；[B, H, T, C/H] 时把各头拼回去（此时 H == n_heads）。
        n_heads: 头数 H，C 能被它整除。

    Returns:
        拆头：[B, H, T, C/H]，第 h 个头是原来第 h*C/H 到 (h+1)*C/H-1 列。
        合头：[B, T, C]，各头的结果按头的顺序首尾相接。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 11 检查；卡住时运行 ./poet hint 11 看提示。")


if __name__ == "__main__":
    x = torch.arange(2 * 3 * 8.0).view(2, 3, 8)  # B=2, T=3, C=8
    heads = solve(x, 4)
    assert tuple(heads.shape) == (2, 4, 3, 2), f"拆成 4 个头后形状应为 (2, 4, 3, 2)，实际是 {tuple(heads.shape)}"
    assert torch.equal(heads[0, 1, 2], x[0, 2, 2:4]), "头 1 在位置 2 上应是 x[0, 2, 2:4]：每个头占一段相邻的列"
    assert torch.equal(heads[1, 3, 0], x[1, 0, 6:8]), "头 3 应取最后两列"
    back = solve(heads, 4)
    assert tuple(back.shape) == (2, 3, 8), f"合头后形状应为 (2, 3, 8)，实际是 {tuple(back.shape)}"
    assert torch.equal(back, x), "先拆再合应原样还原"
    h = torch.arange(4 * 3 * 2.0).view(1, 4, 3, 2)  # 直接给一组头：H=4, T=3, C/H=2
    assert torch.equal(solve(h, 4)[0, 1], torch.tensor([2.0, 3, 8, 9, 14, 15, 20, 21])), (
        "合头时位置 1 应依次接上 4 个头在这个位置上的两个数"
    )
    print("本课补全练习通过。")
