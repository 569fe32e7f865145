"""第 09 课差分检查：随机形状的字向量与位置表，比较学习者与参考答案的 solve。"""
import torch

HINT = ("字向量 words 的形状是 [B, T, C]，位置表 positions 是 [T, C]。"
        "直接写 words + positions：torch 会把 [T, C] 广播成 [1, T, C]，沿批维度复制后逐格相加。"
        "不要用 torch.cat——那会把宽度变成 2C。")


def cases(gen):
    """20 个用例：(words [B,T,C], positions [T,C])，B、T、C 随机。"""
    out = []
    for _ in range(20):
        B, T, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9, 17))
        out.append((torch.randn(B, T, C, generator=gen), torch.randn(T, C, generator=gen)))
    return out
