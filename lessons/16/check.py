"""第 16 课差分检查：随机的预热步数、总步数与峰值，在预热、交界、最后一步和超出总步数处比较学习率。"""
import math

import torch

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {name: f"本课要自己写出学习率日程：不要用 {name}，它直接给出了答案" for name in ("poetry_gpt", "lr_scheduler")}


def cases(gen):
    """40 个用例：(step, warmup, steps, lr, min_lr_ratio)，按顺序轮换八种 step：

    0 预热中的随机一步；1 第 0 步；2 第 warmup − 1 步（预热的最后一步）；3 第 warmup 步；
    4 衰减中的随机一步；5 第 steps − 1 步（训练的最后一步）；6 第 steps 步；7 超过 steps 的一步。
    warmup 有时为 0；有两个用例是 base 预设的设置（预热 100、共 2800 步、峰值 3e-3）；
    第 7、23、39 个用例超过总步数、最低值比例是 0，学习率正好是 0.0（返回整数 0 的答案在这里露馅）；
    第 11、31 个用例的总步数等于预热步数（分母 steps − warmup 是 0，要按 1 算）。
    """
    out = []
    for i in range(40):
        kind = i % 8
        warmup = int(torch.randint(0, 60, (1,), generator=gen)) if i % 5 else 0
        if kind in (0, 2):
            warmup = max(warmup, 1)
        steps = warmup + int(torch.randint(1, 400, (1,), generator=gen))
        lr = (1.0, 0.5, 1e-2, 3e-3)[i % 4]
        ratio = (0.1, 0.0, 0.25, 0.5)[int(torch.randint(0, 4, (1,), generator=gen))]
        if i in (7, 23, 39):
            ratio = 0.0
        if i in (13, 21):
            warmup, steps, lr, ratio = 100, 2800, 3e-3, 0.1
        if i in (11, 31):  # 总步数等于预热步数：steps − warmup 是 0，分母要按 1 算
            warmup = max(warmup, 1)
            steps = warmup
        rand = lambda lo, hi: int(torch.randint(lo, max(hi, lo + 1), (1,), generator=gen))
        step = {0: rand(0, warmup), 1: 0, 2: warmup - 1, 3: warmup, 4: rand(warmup, steps),
                5: steps - 1, 6: steps, 7: steps + rand(1, 500)}[kind]
        out.append((max(step, 0), warmup, steps, lr, ratio))
    return out


def compare(expected, got, where="学习率"):
    """学习率是普通的浮点运算，应与参考答案几乎完全相同（相对误差 1e-9）；必须是 Python 的 float（int、bool 都不行）。"""
    if not isinstance(got, float):
        return f"{where}应是 Python 的 float，实际是 {type(got).__name__}"
    if not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-15):
        return f"{where}应为 {expected!r}，实际是 {got!r}"
    return None
