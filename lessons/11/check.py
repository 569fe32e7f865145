"""第 11 课差分检查：随机形状的拆头与合头，比较学习者与参考答案的 solve。"""
import torch

HINT = ("拆头：x.view(B, T, H, C // H) 把最后一维切成 H 段，再 .transpose(1, 2) 把头挪到第 1 维，得到 [B, H, T, C/H]。"
        "不能直接 view(B, H, T, C // H)——那样切出来的“头”混着不同位置的数。"
        "合头反过来：.transpose(1, 2) 变回 [B, T, H, C/H]，再 .reshape(B, T, C)（转置后内存不连续，view 会报错）。")


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
