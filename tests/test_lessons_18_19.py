"""第 18、19 课：折线图、损失曲线的读取、两课的练习（参考答案与包里的代码一致；错误答案都过不了检查）。"""
import math

import pytest
import torch

from poetry_gpt.labs import plot_rows
from poetry_gpt.metrics import loss_curves


def test_plot_rows_puts_points_where_they_belong():
    grid = plot_rows({"a": [(0, 0.0), (10, 1.0)], "b": [(5, 0.5)]}, hlines={"h": 0.25}, width=11, height=5)
    assert len(grid) == 5 and all(len(r) == 11 for r in grid)
    assert grid[4][0] == (".", 0) and grid[0][10] == (".", 0)    # 第 0 行是最大的 y
    assert grid[2][5] == ("o", 1)                               # 第二条曲线的记号
    assert [c for c, _ in grid[3]] == ["-"] * 11                # 0.25 落在第 3 行
    zoom = plot_rows({"a": [(0, 0.0), (10, 1.0)]}, width=11, height=5, y_limits=(0.5, 1.0))
    assert zoom[0][10] == (".", 0) and all(ch == " " for row in zoom[1:] for ch, _ in row)  # 0.0 在范围外
    with pytest.raises(ValueError):
        plot_rows({"a": []})


def test_loss_curves_of_the_shipped_model_match_its_log():
    curves = loss_curves()
    state = torch.load("data/model.pt", weights_only=True)
    assert curves["eval_poems"] == state["train_config"]["eval_poems"] == 512
    assert len(curves["train"]) == state["step"] == state["train_config"]["steps"] == 6024
    assert curves["train"][0][0] == 1 and curves["train"][-1][0] == 6024
    assert curves["val"][0] == [200, pytest.approx(5.49125)] and curves["val"][-1] == [6024, pytest.approx(3.9245)]
    # 每 200 步验证一次，最后一步（不是 200 的倍数）也验证
    assert [s for s, _ in curves["val"]] == list(range(200, 6024, 200)) + [6024]
    # 从列表读也一样；eval_poems 这时不知道
    from_list = loss_curves(state["log"])
    assert from_list["val"] == curves["val"] and from_list["eval_poems"] is None


# ---------- 练习：错解库与参考答案 ----------

import importlib.util
from dataclasses import replace

from poetry_gpt.courseware.catalogue import BY_NUMBER

from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file, wrong_verdict


def load_solution(number):
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module




_RUN = "new_run, train = simulated_run(setup, stop, total)\nmodel, optimizer = new_run()\n"
_SAVE = """buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "step": stop,
            "rng": torch.get_rng_state()}, buffer)
"""
_LOAD = "buffer.seek(0)\nstate = torch.load(buffer, weights_only=True)\n"

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
    18: {
        "不存优化器状态": _RUN + """losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "step": stop, "rng": torch.get_rng_state()}, buffer)
model, optimizer = new_run()
""" + _LOAD + """model.load_state_dict(state["weights"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "不存随机数状态": _RUN + "losses = train(model, optimizer, 0, stop)\n" + _SAVE + "model, optimizer = new_run()\n" + _LOAD
        + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
return losses + train(model, optimizer, stop, total - stop)""",
        "先放回随机数再新建模型": _RUN + "losses = train(model, optimizer, 0, stop)\n" + _SAVE + _LOAD
        + """torch.set_rng_state(state["rng"])
model, optimizer = new_run()
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
return losses + train(model, optimizer, stop, total - stop)""",
        "续训从第 0 步算学习率": _RUN + "losses = train(model, optimizer, 0, stop)\n" + _SAVE + "model, optimizer = new_run()\n"
        + _LOAD + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, 0, total - stop)""",
        "随机数状态在训练前取": _RUN + """rng = torch.get_rng_state()
losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": rng}, buffer)
model, optimizer = new_run()
""" + _LOAD + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "捷径：不停下，一直训练": _RUN + "return train(model, optimizer, 0, total)",
        "只留引用，没有真正存下来": _RUN + """losses = train(model, optimizer, 0, stop)
state = {"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()}
model, optimizer = new_run()
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "把整个对象存进去，weights_only=False 读回": _RUN + """losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"model": model, "optimizer": optimizer, "rng": torch.get_rng_state()}, buffer)
buffer.seek(0)
state = torch.load(buffer, weights_only=False)
torch.set_rng_state(state["rng"])
return losses + train(state["model"], state["optimizer"], stop, total - stop)""",
        "续训少训练一步": _RUN + "losses = train(model, optimizer, 0, stop)\n" + _SAVE + "model, optimizer = new_run()\n"
        + _LOAD + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop + 1, total - stop - 1)""",
        "权重存成半精度（省一半空间）": _RUN + """losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"weights": {k: v.half() for k, v in model.state_dict().items()}, "optimizer": optimizer.state_dict(),
            "rng": torch.get_rng_state()}, buffer)
model, optimizer = new_run()
""" + _LOAD + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "优化器状态转成 bfloat16": _RUN + """losses = train(model, optimizer, 0, stop)
opt = optimizer.state_dict()
for s in opt["state"].values():
    for k, v in s.items():
        if torch.is_tensor(v) and v.dim() > 0:
            s[k] = v.to(torch.bfloat16)
buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": opt, "rng": torch.get_rng_state()}, buffer)
model, optimizer = new_run()
""" + _LOAD + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "忘了 seek(0)": _RUN + "losses = train(model, optimizer, 0, stop)\n" + _SAVE + """model, optimizer = new_run()
state = torch.load(buffer, weights_only=True)
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "用 deepcopy 代替存档": _RUN + """import copy
losses = train(model, optimizer, 0, stop)
state = copy.deepcopy({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()})
model, optimizer = new_run()
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "读档用 weights_only=False": _RUN + "losses = train(model, optimizer, 0, stop)\n" + _SAVE + """model, optimizer = new_run()
buffer.seek(0)
state = torch.load(buffer, weights_only=False)
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
        "读档后重设种子，代替放回随机数状态": _RUN + "losses = train(model, optimizer, 0, stop)\n" + _SAVE
        + "model, optimizer = new_run()\n" + _LOAD + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.manual_seed(setup["seed"])
return losses + train(model, optimizer, stop, total - stop)""",
        "存档写进 pickle": _RUN + """import pickle
losses = train(model, optimizer, 0, stop)
data = pickle.dumps({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()})
model, optimizer = new_run()
state = pickle.loads(data)
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    },
    19: {
        "返回序号而不是步数": _BEST + """if best is None:
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
""" + _GAP,
        "直接 min，NaN 没处理": """
checked = [i for i, e in enumerate(log) if "val" in e]
best = min(checked, key=lambda i: log[i]["val"]) if checked else None
""" + _GAP,
        "早停：连着 2 次没更低就停": _patience(2) + _GAP,
        "早停：连着 3 次没更低就停": _patience(3) + _GAP,
        "早停：连着 5 次没更低就停": _patience(5) + _GAP,
        "更低要低过 0.01 才算（容差）": _BEST.replace("v < log[best][\"val\"]", "v < log[best][\"val\"] - 0.01") + _GAP,
        "原地排序了日志": """
log.sort(key=lambda e: e["val"] if "val" in e and not math.isnan(e["val"]) else math.inf)
if "val" not in log[0] or math.isnan(log[0]["val"]):
    return None
return log[0]["step"], log[0]["val"] - log[0]["loss"]""",
        "差距用这一步的单步训练损失": _BEST + """if best is None:
    return None
return log[best]["step"], log[best]["val"] - log[best]["loss"]""",
        "平均里没算这一步": _BEST + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log if step - window <= e["step"] < step]
return step, log[best]["val"] - sum(recent) / len(recent)""",
        "平均的是整份日志最后 window 步": _BEST + """if best is None:
    return None
recent = [e["loss"] for e in log[-window:]]
return log[best]["step"], log[best]["val"] - sum(recent) / len(recent)""",
        "开头不够 window 步时仍除以 window": _BEST + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window]
return step, log[best]["val"] - sum(recent) / window""",
        "只平均验证过的那几步的训练损失": _BEST + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window and "val" in e]
return step, log[best]["val"] - sum(recent) / len(recent)""",
        "平均的是之后的 window 步": _BEST + """if best is None:
    return None
recent = [e["loss"] for e in log[best : best + window]]
return log[best]["step"], log[best]["val"] - sum(recent) / len(recent)""",
        "减反了：训练减验证": _BEST + """if best is None:
    return None
step = log[best]["step"]
recent = [e["loss"] for e in log[: best + 1] if e["step"] > step - window]
return step, sum(recent) / len(recent) - log[best]["val"]""",
        "按序号切片，开头没有截到 0": _BEST + """if best is None:
    return None
recent = [e["loss"] for e in log[best - window + 1 : best + 1]]
return log[best]["step"], log[best]["val"] - sum(recent) / len(recent)""",
        "差距返回了 0 维张量": _BEST + """if best is None:
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
    },
}
WRONG = [(number, name) for number, bank in BANK.items() for name in bank]


def test_each_lesson_has_a_bank_of_at_least_five():
    assert all(len(BANK[n]) >= 5 for n in (18, 19))


@pytest.mark.parametrize("number,name", WRONG, ids=[f"{n}-{name}" for n, name in WRONG])
def test_wrong_solution_does_not_pass(number, name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(number, name, BANK[number][name], tmp_path)


def test_lesson_18_missing_seek_is_named_and_half_precision_is_shown_exactly(tmp_path):
    message = wrong_verdict(18, BANK[18]["忘了 seek(0)"], tmp_path).message
    assert "buffer.seek(0)" in message and "EOFError" in message, message
    path = without_visible_checks(wrong_file(18, BANK[18]["权重存成半精度（省一半空间）"], tmp_path))
    message = verdict_of(18, path).message
    assert "逐位相同" in message and "half" in message, message
    message = wrong_verdict(18, BANK[18]["读档用 weights_only=False"], tmp_path).message
    assert "weights_only=True" in message, message


def test_lesson_18_resumed_losses_equal_the_uninterrupted_run():
    """参考答案读档续训后的损失与一口气训练完逐位相同（用 check.py 的真实诗句用例）。"""
    solution = load_solution(18)
    check = importlib.util.module_from_spec(spec := importlib.util.spec_from_file_location(
        "check_18", BY_NUMBER[18].folder / "check.py"))
    spec.loader.exec_module(check)
    for setup, stop, total in check.cases(torch.Generator().manual_seed(1))[:6]:
        new_run, train = solution.simulated_run(setup, total, total)
        model, optimizer = new_run()
        straight = train(model, optimizer, 0, total)                # 一口气训练完，不中断
        assert solution.solve(setup, stop, total) == straight


def test_lesson_18_mirrors_the_package_checkpoint(tmp_path):
    """包里的存档也存了练习里那四样（权重、优化器、步数、随机数），./poet train 断点续训的损失与不停下的一样。"""
    from poetry_gpt.checkpoint import read_checkpoint
    from poetry_gpt.train import PRESETS, train

    tiny = PRESETS["tiny"]
    config = replace(tiny, model=dict(tiny.model, dropout=0.1), steps=6, warmup=2, batch_size=8, eval_every=3,
                     eval_poems=8, train_poems=64)
    straight = train(config, tmp_path / "a", progress=False)
    train(config, tmp_path / "b", stop_at=3, progress=False)
    state = read_checkpoint(tmp_path / "b")
    assert {"weights", "optimizer", "step", "rng"} <= set(state) and state["step"] == 3
    assert "blocks.0.attention.causal" not in state["weights"]       # 因果遮挡不存（persistent=False）
    resumed = train(config, tmp_path / "b", resume=True, progress=False)
    assert [e["loss"] for e in resumed.log] == [e["loss"] for e in straight.log]
    assert resumed.log[-1]["val"] == straight.log[-1]["val"]


def test_lesson_19_verdicts_name_the_part_that_is_wrong(tmp_path):
    """删掉可见检查后，判定消息分开说是步数错了还是差距错了，张量说出要的是 float。"""
    def message(name):
        return verdict_of(19, without_visible_checks(wrong_file(19, BANK[19][name], tmp_path))).message
    assert "开始过拟合的一步" in message("早停：连着 3 次没更低就停")
    assert "差距 gap" in message("平均里没算这一步") and "第 5600 步" in message("平均里没算这一步")
    assert "float" in message("差距返回了 0 维张量")
    assert "开始过拟合的一步" in message("返回序号而不是步数")


def test_lesson_19_solution_agrees_with_the_curve_reader_and_the_experiment():
    """参考答案找出的一步 = loss_curves 的验证曲线上最低点（并列取早）；随课程发布的模型在第 5600 步最低，不是最后一步。
    差距的算法与实验的“最后 200 步训练损失的平均”是同一个：把日志截到最后一次验证，两者相减一致。"""
    solve = load_solution(19).solve
    shipped = torch.load("data/model.pt", weights_only=True)["log"]
    curves = loss_curves(shipped)
    val = curves["val"]
    step, gap = solve(shipped, 200)
    assert step == min(val, key=lambda p: p[1])[0] == 5600 != val[-1][0]
    before = [l for s, l in curves["train"] if 5400 < s <= 5600]
    assert len(before) == 200 and gap == pytest.approx(3.91691 - sum(before) / 200) and 0.2 < gap < 0.3
    tail = [l for s, l in curves["train"] if s > 6024 - 200]
    rising = [dict(e, val=e["val"] - 1.0) if e["step"] == 6024 else e for e in shipped]  # 让最后一步成为最低
    assert solve(rising, 200) == (6024, pytest.approx(val[-1][1] - 1.0 - sum(tail) / 200))
    log = [{"step": s, "loss": float(s), "lr": 1e-3, **({"val": v} if v is not None else {})}
           for s, v in enumerate([None, 5.0, 4.0, None, 4.0, math.nan, 4.5], start=1)]
    assert solve(log, 2) == (3, 1.5) and solve(log, 50) == (3, 2.0) and log[2]["val"] == 4.0


class _Trap:
    def __reduce__(self):
        return (print, ("存档里的代码被执行了",))


def test_read_checkpoint_refuses_a_pickle_with_code_and_says_why(tmp_path, capsys):
    from poetry_gpt.checkpoint import CheckpointError, read_checkpoint

    torch.save({"weights": {}, "extra": _Trap()}, tmp_path / "trap.pt")
    with pytest.raises(CheckpointError, match="不该有的对象"):
        read_checkpoint(tmp_path / "trap.pt")
    assert "被执行了" not in capsys.readouterr().out
    data = (tmp_path / "trap.pt").read_bytes()
    (tmp_path / "half.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="不是完整的模型存档"):
        read_checkpoint(tmp_path / "half.pt")
