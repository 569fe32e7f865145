"""第 12 课差分检查：随机形状与随机权重的前馈网络，比较学习者与参考答案的 solve。"""

import torch

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {
    name: f"请不要调用 {name}：本课练的是用矩阵乘法和 torch.erf 写出 MLP 的每一步" for name in ("gelu", "linear")
}


def cases(gen):
    """24 个用例：x 为 [B, T, C] 或 [T, C]，中间宽度 4C，权重与偏置随机。"""
    out = []
    for i in range(24):
        B, T, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (4, 8, 17))
        shape = (B, T, C) if i % 3 else (T, C)
        scale = 0.5 + 2 * torch.rand(1, generator=gen).item()  # 让一部分数落在 GELU 弯曲明显的地方
        out.append(
            (
                scale * torch.randn(*shape, generator=gen),
                torch.randn(4 * C, C, generator=gen) / C**0.5,
                torch.randn(4 * C, generator=gen),
                torch.randn(C, 4 * C, generator=gen) / (2 * C**0.5),
                torch.randn(C, generator=gen),
            )
        )
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "x 是 [B, T, C]": lambda case, want: case[0].dim() == 3,
    "x 是 [T, C]": lambda case, want: case[0].dim() == 2,
    "中间有很负的值（GELU 不是 ReLU，也不是 0）": lambda case, want: float((case[0] @ case[1].T + case[2]).min()) < -2,
}
