"""第 14 课补全练习：数参数。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(vocab_size, context_length, width, n_layers):
    """PoetryGPT 的参数个数（输出层与字向量表共用一张表，只算一次）。

    Args:
        vocab_size: 汉字表大小 V。
        context_length: 前文长度 L（位置表的行数）。
        width: 表示宽度 C。
        n_layers: Block 的层数。头数不影响参数个数。

    Returns:
        int：字向量表 + 位置表 + 每层（两个 LayerNorm、注意力、MLP）+ 最后的 LayerNorm。
    """
    C = width
    attention = (C * 3 * C + 3 * C) + (C * C + C)  # qkv 与 proj，各有偏置
    mlp = (C * 4 * C + 4 * C) + (4 * C * C + C)  # up 与 down，各有偏置
    norms = 2 * (2 * C)  # norm1、norm2：weight 与 bias 各 C
    block = attention + mlp + norms  # = 12C² + 13C
    return vocab_size * C + context_length * C + n_layers * block + 2 * C  # 最后的 norm；head 不另算


if __name__ == "__main__":
    n = solve(10, 4, 2, 1)
    assert isinstance(n, int), f"应返回整数，实际是 {type(n).__name__}"
    assert n == 20 + 8 + 74 + 4, f"V=10, L=4, C=2, 1 层时应有 106 个参数，实际是 {n}"
    assert solve(10, 4, 2, 0) == 32, "没有 Block 时只剩两张表和最后的 LayerNorm：20 + 8 + 4 = 32"
    assert solve(6672, 64, 128, 4) == 1_655_552, (
        "默认配置（V=6672, L=64, C=128, 4 层）应有 1,655,552 个参数；若得到 2,509,568，是把输出层又算了一遍"
    )
    assert solve(6672, 64, 128, 8) - solve(6672, 64, 128, 4) == 4 * (12 * 128**2 + 13 * 128), "每多一层多 12C² + 13C"
    print("本课补全练习通过。")
