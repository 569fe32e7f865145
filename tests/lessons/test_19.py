"""第 19 课（读懂损失曲线）：练习的错解库；参考答案与读损失曲线的代码、与实验一致。"""

import importlib.util
import math

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file

from courseware.catalogue import BY_NUMBER
from poetry_gpt.metrics import loss_curves

# 第 19 课错解的共用片段：_BEST 按本课的定义找出最低那次验证在列表里的序号 best（找不到是 None），
# _GAP 在 best 上算出正确的 (step, gap)；错解只改其中一处。
_BEST = """
best = None
for i, e in enumerate(log):
    v = e.get("val")
    if v is not None and not math.isnan(v) and (best is None or v < log[best]["val"]):
        best = i
"""
_GAP = """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window]
return step, log[best]["val"] - sum(recent) / len(recent)"""


def _patience(n):
    """带耐心 n 的早停：连着 n 次验证没有更低就不再往下读。"""
    return f"""
best, waited = None, 0
for i, e in enumerate(log):
    v = e.get("val")
    if v is None or math.isnan(v):
        continue
    if best is None or v < log[best]["val"]:
        best, waited = i, 0
    else:
        waited += 1
        if waited >= {n}:
            break
"""


BANK = {
    "返回序号而不是步数": _BEST
    + """if best is None:
    return None
recent = [e["loss"] for e in log[: best + 1] if e["step"] > log[best]["step"] - window]
return best, log[best]["val"] - sum(recent) / len(recent)""",
    "并列时取最晚的一次": _BEST.replace("v < log[best]", "v <= log[best]") + _GAP,
    "第一次回升之前的一步": """
valid = [i for i, e in enumerate(log) if "val" in e and not math.isnan(e["val"])]
best = valid[-1] if valid else None
for i, j in zip(valid, valid[1:]):
    if log[j]["val"] > log[i]["val"]:
        best = i
        break
"""
    + _GAP,
    "直接 min，NaN 没处理": """
checked = [i for i, e in enumerate(log) if "val" in e]
best = min(checked, key=lambda i: log[i]["val"]) if checked else None
"""
    + _GAP,
    "早停：连着 2 次没更低就停": _patience(2) + _GAP,
    "早停：连着 3 次没更低就停": _patience(3) + _GAP,
    "早停：连着 5 次没更低就停": _patience(5) + _GAP,
    "更低要低过 0.01 才算（容差）": _BEST.replace('v < log[best]["val"]', 'v < log[best]["val"] - 0.01') + _GAP,
    "原地排序了日志": """
log.sort(key=lambda e: e["val"] if "val" in e and not math.isnan(e["val"]) else math.inf)
if "val" not in log[0] or math.isnan(log[0]["val"]):
    return None
return log[0]["step"], log[0]["val"] - log[0]["loss"]""",
    "差距用这一步的单步训练损失": _BEST
    + """if best is None:
    return None
return log[best]["step"], log[best]["val"] - log[best]["loss"]""",
    "平均里没算这一步": _BEST
    + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log if step - window <= e["step"] < step]
return step, log[best]["val"] - sum(recent) / len(recent)""",
    "平均的是整份日志最后 window 步": _BEST
    + """if best is None:
    return None
recent = [e["loss"] for e in log[-window:]]
return log[best]["step"], log[best]["val"] - sum(recent) / len(recent)""",
    "开头不够 window 步时仍除以 window": _BEST
    + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window]
return step, log[best]["val"] - sum(recent) / window""",
    "只平均验证过的那几步的训练损失": _BEST
    + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window and "val" in e]
return step, log[best]["val"] - sum(recent) / len(recent)""",
    "平均的是之后的 window 步": _BEST
    + """if best is None:
    return None
recent = [e["loss"] for e in log[best : best + window]]
return log[best]["step"], log[best]["val"] - sum(recent) / len(recent)""",
    "减反了：训练减验证": _BEST
    + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window]
return step, sum(recent) / len(recent) - log[best]["val"]""",
    "按序号切片，开头没有截到 0": _BEST
    + """if best is None:
    return None
recent = [e["loss"] for e in log[best - window + 1 : best + 1]]
return log[best]["step"], log[best]["val"] - sum(recent) / len(recent)""",
    "差距返回了 0 维张量": _BEST
    + """if best is None:
    return None
step = log[best]["step"]
recent = torch.tensor([e["loss"] for e in log[: best + 1] if e["step"] > step - window], dtype=torch.float64)
return step, log[best]["val"] - recent.mean()""",
    "取出 val 时把日志里的条目 pop 掉": """
best, best_val = None, math.inf
for i, entry in enumerate(log):
    v = entry.pop("val", None)
    if v is not None and not math.isnan(v) and v < best_val:
        best, best_val = i, v
if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window]
return step, best_val - sum(recent) / len(recent)""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(19, name, BANK[name], tmp_path)


def load_solution(number):
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lesson_19_verdicts_name_the_part_that_is_wrong(tmp_path):
    """删掉可见检查后，判定消息分开说是步数错了还是差距错了，张量说出要的是 float。"""

    def message(name):
        return verdict_of(19, without_visible_checks(wrong_file(19, BANK[name], tmp_path))).message

    assert "开始过拟合的一步" in message("早停：连着 3 次没更低就停")
    # 第一个用例是 50 步的小日志（最低在第 30 步），不是近两万条的发布日志：输入的预览读得完
    assert "差距 gap" in message("平均里没算这一步") and "第 30 步" in message("平均里没算这一步")
    assert "float" in message("差距返回了 0 维张量")
    assert "开始过拟合的一步" in message("返回序号而不是步数")


def test_lesson_19_solution_agrees_with_the_curve_reader_and_the_experiment():
    """参考答案找出的一步 = loss_curves 的验证曲线上最低点（并列取早）；随课程发布的模型在第 18200 步最低，不是最后一步。
    差距的算法与实验的“最后 200 步训练损失的平均”是同一个：把日志截到最后一次验证，两者相减一致。"""
    solve = load_solution(19).solve
    shipped = torch.load("data/model.pt", weights_only=True)["log"]
    curves = loss_curves(shipped)
    val = curves["val"]
    step, gap = solve(shipped, 200)
    low = min(val, key=lambda p: p[1])
    assert step == low[0] == 18200 != val[-1][0] and low[1] == 3.65001
    before = [l for s, l in curves["train"] if 18000 < s <= 18200]
    assert len(before) == 200 and gap == pytest.approx(low[1] - sum(before) / 200) and 0.0 < gap < 0.1
    last = val[-1][0]  # 最后一次验证（第 19,400 步；训练在第 19,478 步停下，那一步没有验证）
    tail = [l for s, l in curves["train"] if last - 200 < s <= last]
    rising = [dict(e, val=e["val"] - 1.0) if e["step"] == last else e for e in shipped]  # 让最后一次验证成为最低
    assert solve(rising, 200) == (last, pytest.approx(val[-1][1] - 1.0 - sum(tail) / 200))
    log = [
        {"step": s, "loss": float(s), "lr": 1e-3, **({"val": v} if v is not None else {})}
        for s, v in enumerate([None, 5.0, 4.0, None, 4.0, math.nan, 4.5], start=1)
    ]
    assert solve(log, 2) == (3, 1.5) and solve(log, 50) == (3, 2.0) and log[2]["val"] == 4.0
