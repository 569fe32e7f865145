"""第 08 课差分检查：随机的编号与字向量表，比较学习者与参考答案的 solve。"""
import torch


def cases(gen):
    """20 个用例：(ids [B,T] long, weight [V,C] float)，B、T、V、C 随机；V 有时远大于用到的编号。"""
    out = []
    for _ in range(20):
        B, T, V, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9, 60, 17))
        used = int(torch.randint(1, V + 1, (1,), generator=gen))  # 只用前 used 个编号
        ids = torch.randint(0, used, (B, T), generator=gen)
        out.append((ids, torch.randn(V, C, generator=gen)))
    return out
