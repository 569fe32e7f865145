"""第 10 课差分检查：随机形状、随机尺度的注意力分数，比较学习者与参考答案的 solve。"""

import torch


def cases(gen):
    """20 个用例：(scores,)，一半 [T, T]、一半 [B, T, T]，数值尺度从 0.1 到 10 不等。"""
    out = []
    for i in range(20):
        T = int(torch.randint(1, 10, (1,), generator=gen))
        shape = (T, T) if i % 2 == 0 else (int(torch.randint(1, 5, (1,), generator=gen)), T, T)
        scale = float(10 ** (torch.rand(1, generator=gen) * 2 - 1))
        out.append((torch.randn(*shape, generator=gen) * scale,))
    return out
