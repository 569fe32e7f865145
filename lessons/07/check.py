"""第 07 课差分检查：随机大小的计数表（常有整行为 0）和随机的 k，比较两边的概率表（dtype 也要相同：float32）。"""

import torch


def cases(gen):
    """24 个用例：(pair_counts [V, V] long, k)。V 在 2–12 之间，约三分之一的行全是 0。"""
    out = []
    for _ in range(24):
        V = int(torch.randint(2, 13, (1,), generator=gen))
        counts = torch.randint(0, 20, (V, V), generator=gen)
        counts *= torch.rand(V, V, generator=gen) < 0.4  # 大多数搭配没出现过
        counts[torch.rand(V, generator=gen) < 0.3] = 0  # 有的字一次都没当过“前一个字”
        k = [0.01, 0.03, 0.1, 0.5, 1.0, 2.0][int(torch.randint(0, 6, (1,), generator=gen))]
        out.append((counts, k))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "整行为 0（一次都没当过前一个字：均匀分布）": lambda case, want: bool((case[0].sum(dim=1) == 0).any()),
    "k 是小于 1 的小数": lambda case, want: case[1] < 1,
    "k ≥ 1": lambda case, want: case[1] >= 1,
    "没出现过的搭配（格子为 0）": lambda case, want: bool((case[0] == 0).any()),
}
