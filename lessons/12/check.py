"""第 12 课差分检查：随机形状与随机权重的前馈网络，比较学习者与参考答案的 solve。"""
import torch


def cases(gen):
    """24 个用例：x 为 [B, T, C] 或 [T, C]，中间宽度 4C，权重与偏置随机。"""
    out = []
    for i in range(24):
        B, T, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (4, 8, 17))
        shape = (B, T, C) if i % 3 else (T, C)
        scale = 0.5 + 2 * torch.rand(1, generator=gen).item()  # 让一部分数落在 GELU 弯曲明显的地方
        out.append((scale * torch.randn(*shape, generator=gen),
                    torch.randn(4 * C, C, generator=gen) / C ** 0.5, torch.randn(4 * C, generator=gen),
                    torch.randn(C, 4 * C, generator=gen) / (2 * C ** 0.5), torch.randn(C, generator=gen)))
    return out
