"""第 16 课补全练习：预热加余弦衰减的学习率。修改 solve，保持下方检查不变。"""
import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(step, warmup, steps, lr, min_lr_ratio):
    """第 step 步（从 0 数）用的学习率，与训练代码 train.py 里的 learning_rate 一模一样。

    Args:
        step: 第几步，从 0 数（整数，≥ 0）。训练一共做 steps 步：第 0 步到第 steps − 1 步。
        warmup: 预热步数（整数，≥ 0）。
        steps: 总步数（整数，≥ 1）。
        lr: 峰值学习率。
        min_lr_ratio: 衰减到的最低值占峰值的比例，最低值 low = lr × min_lr_ratio。

    Returns:
        float：
        - 预热（step < warmup）：lr × (step + 1) / warmup。第 0 步是峰值的 1/warmup，第 warmup − 1 步正好到峰值。
        - 之后：进度 progress = (step − warmup) / (steps − warmup)，分母至少按 1 算，进度最多到 1；
          学习率 = low + (lr − low) × (1 + cos(π × progress)) / 2。第 warmup 步是峰值，第 steps 步降到 low，
          超过 steps 的步一直是 low。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 16 检查；卡住时运行 ./poet hint 16 看提示。")

if __name__ == "__main__":
    import inspect
    for name in ("poetry_gpt", "lr_scheduler"):
        assert name not in inspect.getsource(solve), f"本课要自己写出学习率日程：solve 里不要用 {name}，它直接给出了答案"

    # 手算的小例子：预热 4 步，共 12 步，峰值 1.0，最低 0.1
    got = [solve(s, 4, 12, 1.0, 0.1) for s in range(14)]
    assert all(isinstance(v, float) for v in got), "应返回 Python 的 float"
    assert abs(got[0] - 0.25) < 1e-12, f"第 0 步（从 0 数）是预热的第一步：1.0 × 1/4 = 0.25，不是 0；实际是 {got[0]}"
    assert abs(got[3] - 1.0) < 1e-12, f"第 3 步是预热的最后一步，应正好到峰值 1.0，实际是 {got[3]}"
    assert abs(got[4] - 1.0) < 1e-12, f"第 4 步余弦刚开始（进度 0），仍是峰值 1.0，实际是 {got[4]}"
    assert abs(got[8] - 0.55) < 1e-12, f"第 8 步进度 (8−4)/(12−4) = 0.5，应为 0.1 + 0.9 × (1 + cos(π/2))/2 = 0.55，实际是 {got[8]}"
    assert abs(got[11] - (0.1 + 0.45 * (1 + math.cos(math.pi * 7 / 8)))) < 1e-12, \
        f"第 11 步是训练的最后一步，进度 7/8，应约为 0.1343，实际是 {got[11]}"
    assert abs(got[12] - 0.1) < 1e-12 and abs(got[13] - 0.1) < 1e-12, \
        f"第 12 步（= steps）及以后进度封顶为 1，一直是最低值 0.1；实际是 {got[12]}、{got[13]}"
    assert solve(0, 0, 10, 2.0, 0.1) == 2.0, "没有预热（warmup = 0）时第 0 步就是峰值"
    base = [solve(s, 100, 2800, 3e-3, 0.1) for s in (0, 99, 100, 2800)]
    assert abs(base[0] - 3e-5) < 1e-15 and abs(base[1] - 3e-3) < 1e-15 and abs(base[3] - 3e-4) < 1e-15, \
        f"base 预设（预热 100、共 2800 步、峰值 3e-3）：第 0、99、2800 步应为 3e-5、3e-3、3e-4，实际是 {base}"
    print("本课补全练习通过。")
