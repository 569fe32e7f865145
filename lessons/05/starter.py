"""第 05 课补全练习：建编号表，特殊标记在前。修改 solve，保持下方检查不变。"""

from collections import Counter

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(texts, min_count, specials):
    """建汉字表的编号表（与 poetry_gpt.data.Tokenizer.build 相同）。

    Args:
        texts: 字符串列表（训练集的诗，标点也算字）。
        min_count: 一个字至少出现这么多次才收进表。
        specials: 特殊标记的元组，原样排在最前面。

    Returns:
        列表：先是 specials，再是出现次数 ≥ min_count 的字，按次数从多到少，
        次数相同按码位 ord(字) 从小到大。第 i 项就是编号 i 对应的标记。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 5 检查；卡住时运行 ./poet hint 5 看提示。")


if __name__ == "__main__":
    table = solve(["春风春", "风月。"], 1, ("<pad>", "<unk>"))
    assert table[:2] == ["<pad>", "<unk>"], "特殊标记要原样排在最前面"
    assert table == ["<pad>", "<unk>", "春", "风", "。", "月"], f"顺序不对：{table}"
    assert solve(["春风春", "风月。"], 2, ("<pad>",)) == ["<pad>", "春", "风"], "出现不到 min_count 次的字不进表"
    assert solve([], 1, ("<pad>", "<unk>")) == ["<pad>", "<unk>"], "没有诗时表里只有特殊标记"
    print("本课补全练习通过。")
