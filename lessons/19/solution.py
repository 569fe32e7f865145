"""第 19 课补全练习：找出开始过拟合的一步，并量出那时两条曲线分开了多少。修改 solve，保持下方检查不变。"""

import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(log, window):
    """训练日志里“开始过拟合的一步”，以及那一步验证损失比训练损失高多少。

    开始过拟合的一步（本课的定义）：只看带 "val" 的条目，取 val 最小的一条，它的 "step" 就是；几条并列最低时
    取最早的一条；val 是 NaN 的条目（训练发散了）不算。从这一步往后，验证损失再也没有更低过。

    差距：这一步的 val，减去这一步和它之前、一共 window 步的训练损失的平均——即 step 在
    s − window + 1 到 s 之间（含两端）的条目的 "loss" 的平均；日志从第 1 步记起，开头不够 window 步时，
    有几步就平均几步。单步的训练损失只在那一批诗上算，噪声大，所以要取一段的平均。

    Args:
        log: ``./poet train`` 写的日志，列表，按步数从小到大、每步一条；每条是 dict：``step``（做完第几步，
            从 1 数）、``loss``（这一步那批诗上的训练损失）、``lr``，验证过的那几步还有 ``val``（奈特/字）。
            不要修改它。
        window: 正整数，训练损失取平均的步数。

    Returns:
        (step, gap)：step 是 int，gap 是 float（奈特/字，val 减训练损失的平均，过拟合时为正）；
        日志里没有一次有效的验证时返回 None。
    """
    best = None
    for i, entry in enumerate(log):
        val = entry.get("val")
        if val is None or math.isnan(val):
            continue
        if best is None or val < log[best]["val"]:  # 严格小于：并列最低时留下最早的一次
            best = i
    if best is None:
        return None
    step = log[best]["step"]
    recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window]
    return step, log[best]["val"] - sum(recent) / len(recent)


if __name__ == "__main__":
    log = [{"step": s, "loss": 6.0 - s / 10, "lr": 1e-3} for s in range(1, 31)]
    for entry, val in zip(log[4::5], [5.9, 5.6, 5.5, 5.7, 5.5, 5.8]):
        entry["val"] = val  # 第 5、10、15、20、25、30 步验证过
    kept = [dict(entry) for entry in log]
    got = solve(log, 4)
    assert got is not None and got[0] == 15, (
        f"验证损失在第 15 步最低（5.5），第 25 步只是追平，开始过拟合的一步应是 15，实际是 {got!r}"
    )
    assert log == kept, "不要修改传进来的日志（不要排序、删改其中的条目）：后面画曲线还要用它"
    assert isinstance(got[1], float) and abs(got[1] - 0.85) < 1e-9, (
        f"window = 4：第 12–15 步的训练损失平均是 4.65，差距应是 5.5 − 4.65 = 0.85，实际是 {got[1]!r}"
    )
    got = solve(log, 100)
    assert abs(got[1] - 0.3) < 1e-9, (
        f"开头不够 window 步时有几步平均几步：第 1–15 步平均 5.2，差距应是 5.5 − 5.2 = 0.3，实际是 {got[1]!r}"
    )
    stairs = [
        {"step": s, "loss": 5.0, "lr": 1e-3, "val": v}
        for s, v in zip(range(10, 90, 10), (5.6, 5.4, 5.45, 5.5, 5.42, 5.3, 5.31, 5.35))
    ]
    got = solve(stairs, 1)
    assert got is not None and got[0] == 60, (
        f"第 30、40、50 步连着三次没有更低，第 60 步又创了新低：开始过拟合的一步是 60，实际是 {got!r}（不是“连着几次没降就停”）"
    )
    assert solve([{"step": 1, "loss": 6.0, "lr": 1e-3}], 5) is None, "没有一次验证时应返回 None"
    diverged = [
        {"step": 5, "loss": 5.0, "lr": 1e-3, "val": float("nan")},
        {"step": 10, "loss": 4.0, "lr": 1e-3, "val": 5.2},
        {"step": 15, "loss": 3.0, "lr": 1e-3, "val": 5.3},
    ]
    got = solve(diverged, 1)
    assert got is not None and got[0] == 10, f"val 为 NaN 的那次不算，应返回第 10 步，实际是 {got!r}"
    print("本课补全练习通过。")
