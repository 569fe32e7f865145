"""第 19 课补全练习：找出开始过拟合的一步。修改 solve，保持下方检查不变。"""
import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(log):
    """训练日志里“开始过拟合的一步”：验证损失最低的那次验证所在的步数。

    定义：只看带 "val" 的条目，取 val 最小的一条，返回它的 "step"；几条并列最低时取最早的一条；
    val 是 NaN 的条目（训练发散了）不算。从这一步往后，验证损失再也没有更低过——再训练就是在背训练集。

    Args:
        log: ``./poet train`` 写的日志，列表，按步数从小到大；每条是 dict：``step``（做完第几步，从 1 数）、
            ``loss``（这一步那批诗上的训练损失）、``lr``，验证过的那几步还有 ``val``（奈特/字）。不要修改它。

    Returns:
        int：那一步的 step；日志里没有一次有效的验证时返回 None。
    """
    best_step, best = None, math.inf
    for entry in log:
        val = entry.get("val")
        if val is None or math.isnan(val):
            continue
        if val < best:  # 严格小于：并列最低时留下最早的一次
            best_step, best = entry["step"], val
    return best_step


if __name__ == "__main__":
    log = [{"step": s, "loss": 6.0 - s / 10, "lr": 1e-3} for s in range(1, 31)]
    for entry, val in zip(log[4::5], [5.9, 5.6, 5.5, 5.7, 5.5, 5.8]):
        entry["val"] = val                                      # 第 5、10、15、20、25、30 步验证过
    kept = [dict(entry) for entry in log]
    got = solve(log)
    assert got == 15, f"验证损失在第 15 步最低（5.5），第 25 步只是追平，应返回 15，实际是 {got!r}"
    assert log == kept, "不要修改传进来的日志（不要排序、删改其中的条目）：后面画曲线还要用它"
    stairs = [{"step": s, "loss": 5.0, "lr": 1e-3, "val": v}
              for s, v in zip(range(10, 90, 10), (5.6, 5.4, 5.45, 5.5, 5.42, 5.3, 5.31, 5.35))]
    assert solve(stairs) == 60, \
        f"第 30、40、50 步连着三次没有更低，第 60 步又创了新低：开始过拟合的一步是 60，实际是 {solve(stairs)!r}（不是“连着几次没降就停”）"
    assert solve([{"step": 1, "loss": 6.0, "lr": 1e-3}]) is None, "没有一次验证时应返回 None"
    diverged = [{"step": 5, "loss": 5.0, "lr": 1e-3, "val": float("nan")},
                {"step": 10, "loss": 4.0, "lr": 1e-3, "val": 5.2},
                {"step": 15, "loss": 3.0, "lr": 1e-3, "val": 5.3}]
    assert solve(diverged) == 10, f"val 为 NaN 的那次不算，应返回 10，实际是 {solve(diverged)!r}"
    noisy = [{"step": s, "loss": 5.0, "lr": 1e-3, "val": v} for s, v in zip((10, 20, 30, 40, 50), (5.4, 5.3, 5.31, 5.29, 5.6))]
    assert solve(noisy) == 40, f"第 30 步的回升只是噪声，第 40 步更低，应返回 40，实际是 {solve(noisy)!r}"
    print("本课补全练习通过。")
