"""第 11 课差分检查：随机形状的拆头与合头，比较学习者与参考答案的 solve。"""

import torch


def cases(gen):
    """24 个用例：一半是 [B, T, C] 拆头，一半是 [B, H, T, C/H] 合头；B、T、H、C/H 随机。"""
    out = []
    for i in range(24):
        B, T, H, D = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (4, 9, 9, 9))
        if i % 2 == 0:
            out.append((torch.randn(B, T, H * D, generator=gen), H))
        else:
            out.append((torch.randn(B, H, T, D, generator=gen), H))
    return out
