"""第 08 课差分检查：随机的编号与字向量表，比较学习者与参考答案的 solve。"""
import torch

HINT = ("编号 ids 是 [B, T]，表 weight 是 [V, C]。F.one_hot(ids, V) 把每个编号变成长 V、只有一个 1 的向量，"
        "形状 [B, T, V]；它是整数，要先 .float()（或 .to(weight.dtype)）才能和 weight 相乘。"
        "[B, T, V] @ [V, C] 得到 [B, T, C]：那个 1 把表里对应的一行“挑”了出来。"
        "V 取 weight.shape[0]，不要取 ids.max()+1——那样某些用例里表会对不上。")


def cases(gen):
    """20 个用例：(ids [B,T] long, weight [V,C] float)，B、T、V、C 随机；V 有时远大于用到的编号。"""
    out = []
    for _ in range(20):
        B, T, V, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9, 60, 17))
        used = int(torch.randint(1, V + 1, (1,), generator=gen))  # 只用前 used 个编号
        ids = torch.randint(0, used, (B, T), generator=gen)
        out.append((ids, torch.randn(V, C, generator=gen)))
    return out
