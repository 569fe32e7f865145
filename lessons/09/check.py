"""第 09 课差分检查：随机的新字段、位置表与 past，比较两边加上位置后的结果。"""

import torch

# past + T 超过 L 时 solve 应当 raise ValueError：这样的用例比较“是否 raise 了 ValueError”，悄悄截断算错
RAISES = ("ValueError",)


def cases(gen):
    """28 个用例：(words [B,T,C], positions [L,C], past)。

    前 24 个按顺序轮换四种：past = 0（整首一次送进）；T = 1、past 随机（逐字生成，第 20 课）；
    past + T 正好等于 L（最后一行也要用上，多拒绝一格就错）；课程的真实尺寸 L = 64、C = 128。
    最后 4 个 past + T 超过 L（多 1 个或多几个）：参考答案在这里 raise ValueError。
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
    for i in range(4):  # 太长：位置表没有那么多行
        B, T, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (4, 9, 17))
        L = T + int(torch.randint(0, 12, (1,), generator=gen))
        past = L - T + 1 + (0 if i % 2 == 0 else int(torch.randint(1, 6, (1,), generator=gen)))
        out.append((torch.randn(B, T, C, generator=gen), torch.randn(L, C, generator=gen), past))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "past = 0（整首一次送进）": lambda case, want: case[2] == 0,
    "T = 1（逐字生成）": lambda case, want: case[0].shape[1] == 1 and case[2] > 0,
    "past + T 正好等于 L（最后一行也用上）": lambda case, want: case[2] + case[0].shape[1] == case[1].shape[0],
    "past + T 比 L 多 1（raise ValueError）": lambda case, want: case[2] + case[0].shape[1] == case[1].shape[0] + 1,
    "past + T 比 L 多好几个（raise ValueError）": lambda case, want: case[2] + case[0].shape[1] > case[1].shape[0] + 1,
    "课程的真实尺寸 L = 64、C = 128": lambda case, want: tuple(case[1].shape) == (64, 128),
}
