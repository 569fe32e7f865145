"""第 09 课差分检查：随机形状的字向量与位置表，比较学习者与参考答案的 solve。"""
import torch


def cases(gen):
    """20 个用例：(words [B,T,C], positions [T,C])，B、T、C 随机。"""
    out = []
    for _ in range(20):
        B, T, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9, 17))
        out.append((torch.randn(B, T, C, generator=gen), torch.randn(T, C, generator=gen)))
    return out
