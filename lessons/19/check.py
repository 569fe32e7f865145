"""第 19 课差分检查：真实与合成的训练日志，比较学习者与参考答案找出的“开始过拟合的一步”，以及那一步的验证损失
比它之前 window 步训练损失的平均高多少。

用例里有：随课程发布的模型自己的日志（19478 条，验证损失在第 18200 步最低（3.650），之后回升，在 3.66–3.71 之间，
答案是 18200，window 取实验用的 200）；先降后升、带噪声的 U 形曲线（验证损失像日志里那样保留 5 位小数，常有并列）；并列最低、
NaN（发散）、一路上升、只验证过一次、一次也没验证过、最后一步才验证（总步数不是 eval_every 的倍数），
以及连着两次、三次、五次没有更低之后又创新低的台阶（带“耐心”的早停在这里停得太早）。window 有 1、比最低点之前的
步数还多、恰好等于最低点的步数（平均从第 1 步起），以及随机的 2–40。
"""

import math

import torch


def compare(expected, got):
    """(step, gap) 分两项说：步数错了多半是定义读错了（并列、NaN、早停），差距错了多半是平均的那一段取错了。"""
    if expected is None or got is None:
        return (
            None
            if got is expected
            else (f"应返回 {expected!r}（一次有效的验证都没有时是 None），实际是 {str(got)[:80]}")
        )
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return f"应返回 (step, gap) 两项，实际是 {str(got)[:80]}"
    step, gap = got
    if type(step) is not int or step != expected[0]:
        return f"开始过拟合的一步（日志里的 step）应为 {expected[0]}，实际是 {str(step)[:80]}"
    if not isinstance(gap, float):
        return f"差距 gap 应是 Python 的 float，实际是 {type(gap).__name__}"
    if not math.isclose(gap, expected[1], rel_tol=1e-4, abs_tol=1e-6):
        return f"第 {expected[0]} 步的差距 gap（val 减训练损失的平均）应约为 {expected[1]:.6g}，实际是 {gap!r}"
    return None


def _log(vals, eval_every, steps, gen):
    """一份日志：每步一条（loss、lr），每 eval_every 步与最后一步带 val。vals 依次填进这些验证。"""
    log, it = [], iter(vals)
    for s in range(1, steps + 1):
        entry = {
            "step": s,
            "loss": round(7.0 * math.exp(-s / 60) + 0.2 * float(torch.rand(1, generator=gen)), 5),
            "lr": 1e-3,
        }
        if s % eval_every == 0 or s == steps:
            val = next(it, None)
            if val is not None:
                entry["val"] = val
        log.append(entry)
    return log


def _u_curve(n, gen, noise=0.02, digits=5):
    """先降后升的验证曲线：最低点落在随机的一次验证上，叠加噪声，按日志的习惯四舍五入。"""
    bottom = int(torch.randint(0, n, (1,), generator=gen))
    out = []
    for i in range(n):
        base = 5.0 + 0.01 * (i - bottom) ** 2 + 0.03 * abs(i - bottom)
        out.append(round(base + noise * float(torch.randn(1, generator=gen)), digits))
    return out


def _window(gen):
    """训练损失取平均的步数：2–40，常比两次验证的间隔长。"""
    return int(torch.randint(2, 41, (1,), generator=gen))


def _shipped_log():
    from poetry_gpt.checkpoint import SHIPPED_MODEL

    return torch.load(SHIPPED_MODEL, weights_only=True)["log"]


def cases(gen):
    """33 个用例，每个是 (log, window)：14 个定好的边界（随课程发布的模型的日志插在第 2 个）、5 段台阶（新低之前
    连着 2–6 次没有更低）、13 条随机的 U 形曲线。"""
    nan = float("nan")
    out = []
    fixed = [
        ([5.5, 5.2, 5.0, 5.0, 5.3], 10, 50),  # 两次并列最低：取早的
        ([5.1, 5.3, 5.1, 5.4], 5, 20),  # 第一次就是最低，后来又追平一次
        ([nan, 6.0, 5.8, nan, 5.9], 5, 25),  # 开头就发散过一次
        ([5.0, 5.2, 5.4, 5.6], 10, 40),  # 一路上升：第一次验证就是答案
        ([6.0, 5.5, 5.1, 4.9], 10, 40),  # 一路下降：最后一次
        ([5.7], 10, 10),  # 只验证过一次
        ([], 10, 9),  # 一次也没验证过
        ([nan, nan], 3, 6),  # 全部发散
        ([5.6, 5.4, 5.45], 20, 45),  # 最后一步（45）也验证：不是 20 的倍数
        ([5.4, 5.3, 5.31, 5.29, 5.35, 5.6], 5, 30),  # 噪声：第一次回升（第 15 步）不是最低点
        ([5.5, 5.3, 5.35, 5.4, 5.2, 5.6], 10, 60),  # 连着两次没更低，然后新低（耐心 2 的早停在这里停错）
        ([5.5, 5.3, 5.32, 5.31, 5.33, 5.1, 5.4], 4, 28),  # 连着三次没更低，然后新低
        ([6.0, 5.8, 5.9, 5.85, 5.95, 5.81, 5.9, 5.7, 5.75], 7, 60),  # 连着五次没更低，然后新低
        ([5.4, 5.3, 5.3, 5.3, 5.29, 5.5], 3, 18),  # 两次追平（不算更低），再略低一点
    ]
    windows = [5, 1, 100, 3, 20, 10, 4, 2, 7, 15, 30, 12, 1, 15]  # 第 3 个比最低点之前的步数多；最后一个恰好等于它
    for (vals, every, steps), window in zip(fixed, windows):
        out.append((_log(vals, every, steps, gen), window))
    # 发布的日志有 19478 条：不放在第 1 个——runner 把第 1、5、9……个用例调用两次，这一份每多调用一次，
    # 检查进程就要多编码、解码几遍整份日志，多花一秒多的 CPU（时间上限算的就是它）
    out.insert(1, (_shipped_log(), 200))
    for _ in range(5):  # 台阶：每次新低之前，有 2–6 次验证没有更低（早停的“耐心”到了也不能停）
        vals, level = [], 6.0
        for _ in range(int(torch.randint(2, 5, (1,), generator=gen))):
            level -= 0.05 + 0.2 * float(torch.rand(1, generator=gen))
            vals.append(round(level, 4))
            vals += [
                round(level + 0.01 + 0.1 * float(torch.rand(1, generator=gen)), 4)
                for _ in range(int(torch.randint(2, 7, (1,), generator=gen)))
            ]
        every = int(torch.randint(1, 12, (1,), generator=gen))
        out.append((_log(vals, every, len(vals) * every, gen), _window(gen)))
    for _ in range(13):
        n = int(torch.randint(3, 30, (1,), generator=gen))
        every = int(torch.randint(1, 12, (1,), generator=gen))
        vals = _u_curve(
            n,
            gen,
            noise=[0.0, 0.005, 0.02, 0.08][int(torch.randint(0, 4, (1,), generator=gen))],
            digits=[2, 3, 5][int(torch.randint(0, 3, (1,), generator=gen))],
        )
        if float(torch.rand(1, generator=gen)) < 0.5:  # 另一次验证恰好追平最低值（前或后）
            vals[int(torch.randint(0, n, (1,), generator=gen))] = min(vals)
        if float(torch.rand(1, generator=gen)) < 0.3:
            vals[int(torch.randint(0, n, (1,), generator=gen))] = nan
        out.append((_log(vals, every, n * every, gen), _window(gen)))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _vals(log):
    return [e["val"] for e in log if "val" in e]


def _steps(log):
    return [e["step"] for e in log if "val" in e]


def _plateau(vals):
    """连着至少两次没有更低之后又创新低（带“耐心”的早停在这里停得太早）。"""
    best, run = math.inf, 0
    for x in vals:
        if x < best:
            if run >= 2:
                return True
            best, run = x, 0
        elif not math.isnan(x):
            run += 1
    return False


KINDS = {
    "随课程发布的模型自己的日志": lambda case, want: len(case[0]) > 5000,
    "并列最低（取早的）": lambda case, want: (
        want is not None
        and [v for v in _vals(case[0]) if not math.isnan(v)].count(min(v for v in _vals(case[0]) if not math.isnan(v)))
        > 1
    ),
    "有 NaN（发散）": lambda case, want: want is not None and any(math.isnan(v) for v in _vals(case[0])),
    "全是 NaN（没有有效的验证：None）": lambda case, want: want is None and _vals(case[0]) != [],
    "一次也没验证过（None）": lambda case, want: _vals(case[0]) == [],
    "只验证过一次": lambda case, want: len(_vals(case[0])) == 1,
    "一路上升（第一次验证就是答案）": lambda case, want: (
        want is not None
        and len(_vals(case[0])) > 2
        and _vals(case[0]) == sorted(_vals(case[0]))
        and want[0] == _steps(case[0])[0]
    ),
    "最低点在最后一次验证": lambda case, want: (
        want is not None and len(_steps(case[0])) > 1 and want[0] == _steps(case[0])[-1]
    ),
    "最后一步也验证（总步数不是 eval_every 的倍数）": lambda case, want: (
        len(_steps(case[0])) > 2 and _steps(case[0])[-1] - _steps(case[0])[-2] != _steps(case[0])[0]
    ),
    "台阶：连着两次以上没有更低，之后又创新低": lambda case, want: _plateau(_vals(case[0])),
    "window = 1": lambda case, want: case[1] == 1,
    "window 比最低点之前的步数还多": lambda case, want: want is not None and case[1] > want[0],
    "window 恰好等于最低点的步数": lambda case, want: want is not None and case[1] == want[0],
}
