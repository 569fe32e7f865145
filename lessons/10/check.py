"""第 10 课差分检查：随机形状、随机尺度的注意力分数，比较学习者与参考答案的 solve。"""

import torch


def cases(gen):
    """20 个用例：(scores,)，一半 [T, T]、一半 [B, T, T]，数值尺度从 0.1 到 10 不等；每 5 个里有 1 个是 float64，
    权重也要是 float64（softmax 不改 dtype）。"""
    out = []
    for i in range(20):
        T = int(torch.randint(1, 10, (1,), generator=gen))
        T = 1 if i in (2, 3) else T  # 只有一个位置：只看得见自己，权重是 1
        shape = (T, T) if i % 2 == 0 else (int(torch.randint(1, 5, (1,), generator=gen)), T, T)
        scale = float(10 ** (torch.rand(1, generator=gen) * 2 - 1))
        scores = torch.randn(*shape, generator=gen) * scale
        out.append((scores.double() if i % 5 == 4 else scores,))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "[T, T]": lambda case, want: case[0].dim() == 2,
    "[B, T, T]": lambda case, want: case[0].dim() == 3,
    "T = 1（只看得见自己）": lambda case, want: case[0].shape[-1] == 1,
    "分数的尺度大（最大的上了 10）": lambda case, want: float(case[0].abs().max()) > 10,
    "分数的尺度小（都在 1 以内）": lambda case, want: float(case[0].abs().max()) < 1,
    "float64 的分数（权重也是 float64）": lambda case, want: case[0].dtype == torch.float64,
}
