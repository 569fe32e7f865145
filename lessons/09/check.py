"""第 09 课差分检查：随机的新字段、位置表与 past，比较两边加上位置后的结果。"""
import torch


def cases(gen):
    """24 个用例：(words [B,T,C], positions [L,C], past)。

    按顺序轮换四种：past = 0（整首一次送进）；T = 1、past 随机（逐字生成，第 20 课）；
    past + T 正好等于 L（最后一行也要用上，多拒绝一格就错）；课程的真实尺寸 L = 64、C = 128。
    """
    out = []
    for i in range(24):
        B, T, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (4, 9, 17))
        L = T + int(torch.randint(0, 12, (1,), generator=gen))
        kind = i % 4
        if kind == 1:
            T = 1
        if kind == 3:
            L, C = 64, 128
        room = L - T
        past = {0: 0, 2: room}.get(kind, int(torch.randint(0, room + 1, (1,), generator=gen)))
        out.append((torch.randn(B, T, C, generator=gen), torch.randn(L, C, generator=gen), past))
    return out
