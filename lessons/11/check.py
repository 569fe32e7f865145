"""第 11 课差分检查：随机形状的拆头与合头，比较学习者与参考答案的 solve。"""

import torch


def cases(gen):
    """24 个用例：一半是 [B, T, C] 拆头，一半是 [B, H, T, C/H] 合头；B、T、H、C/H 随机。"""
    out = []
    for i in range(24):
        B, T, H, D = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (4, 9, 9, 9))
        H, D = {0: (1, D), 1: (1, D), 2: (H + 1, 1), 3: (H + 1, 1)}.get(i, (H, D))  # 一个头；每个头只有一列
        if i % 2 == 0:
            out.append((torch.randn(B, T, H * D, generator=gen), H))
        else:
            out.append((torch.randn(B, H, T, D, generator=gen), H))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _heads_and_size(case):
    """(H, C/H)：拆头时由 [B, T, C] 与 n_heads 算出，合头时就是 [B, H, T, C/H] 的两维。"""
    t, H = case
    return (H, t.shape[-1] // H) if t.dim() == 3 else (t.shape[1], t.shape[-1])


KINDS = {
    "拆头（三维 [B, T, C]）": lambda case, want: case[0].dim() == 3,
    "合头（四维 [B, H, T, C/H]）": lambda case, want: case[0].dim() == 4,
    "拆成一个头": lambda case, want: case[0].dim() == 3 and case[1] == 1,
    "合一个头": lambda case, want: case[0].dim() == 4 and case[1] == 1,
    "每个头只有一列（拆）": lambda case, want: case[0].dim() == 3 and _heads_and_size(case)[1] == 1 < case[1],
    "每个头只有一列（合）": lambda case, want: case[0].dim() == 4 and _heads_and_size(case)[1] == 1 < case[1],
    "多个头、每头多列": lambda case, want: min(_heads_and_size(case)) > 1,
}
