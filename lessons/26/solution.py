"""第 26 课补全练习：按参数预算选宽度。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(budget, vocab_size, context_length, n_layers, n_heads):
    """在参数预算之内，给定层数和头数，选出最大的宽度 C（训练之前、不建模型，只用第 14 课的公式）。

    参数个数 = V·C + L·C + n·(12C² + 13C) + 2C（输出层与字向量表共用一张表，只算一次）。
    宽度必须能被头数整除（每个头分到 C / n_heads 个数），所以只考虑 n_heads, 2·n_heads, 3·n_heads, …

    Args:
        budget: 参数个数的上限（整数）；正好等于上限也算在预算之内。
        vocab_size: 汉字表大小 V。
        context_length: 前文长度 L。
        n_layers: Block 的层数 n（可以是 0）。
        n_heads: 注意力头数。

    Returns:
        (width, n_parameters)：两个 int——最大的合格宽度，和这个宽度下的参数个数（≤ budget）。

    Raises:
        ValueError: 连最窄的宽度 C = n_heads 都超出预算。
    """

    def count(C):
        return vocab_size * C + context_length * C + n_layers * (12 * C * C + 13 * C) + 2 * C

    width = n_heads
    if count(width) > budget:
        raise ValueError(f"预算 {budget} 太小：宽度 {n_heads} 就已有 {count(width)} 个参数")
    while count(width + n_heads) <= budget:  # 参数个数随宽度单调增加：一直加宽到下一步超出预算为止
        width += n_heads
    return width, count(width)


if __name__ == "__main__":
    got = solve(240_000, 6672, 48, 1, 2)
    assert isinstance(got, tuple) and len(got) == 2, f"应返回 (width, n_parameters) 两个数，实际是 {got!r}"
    assert all(type(x) is int for x in got), f"宽度和参数个数都应是 int，实际是 {[type(x).__name__ for x in got]}"
    assert got == (32, 227_808), (
        f"预算 24 万、V=6672、L=48、1 层、2 头时应选宽 32（tiny 预设），共 227,808 个参数，实际是 {got}"
    )
    assert solve(1_655_552, 6672, 64, 4, 4) == (128, 1_655_552), (
        "预算正好是 1,655,552（ModelConfig 的默认尺寸，4 层、宽 128）时应选宽 128：正好等于预算也算在预算之内"
    )
    width, n = solve(1_000_000, 6672, 64, 4, 4)
    assert (width, n) == (88, 969_232), f"预算 100 万、4 层、4 头时应选宽 88，共 969,232 个参数，实际是 {(width, n)}"
    assert 6672 * width / n > 0.6, "宽 88 时字向量表 V·C 占六成以上：预算小时，大半参数都在字向量表里"
    width, _ = solve(900_000, 6672, 64, 4, 3)  # 不管头数的话能宽到 83
    assert width % 3 == 0 and width == 81, f"预算 90 万、3 个头时宽度要能被 3 整除，应是 81，实际是 {width}"
    assert solve(10, 5, 2, 0, 1) == (1, 9), (
        "V=5、L=2、没有 Block：宽 1 有 5 + 2 + 2 = 9 个参数，宽 2 就有 18 个，预算 10 只够宽 1"
    )
    try:
        solve(100, 6672, 64, 4, 4)
    except ValueError:
        pass
    else:
        raise AssertionError("连宽度 4（= 头数）都超出预算时应 raise ValueError")
    print("本课补全练习通过。")
