"""第 18 课（存档与复现）：练习的错解库；参考答案与包里的存档一致，续训的损失与不中断的一样。"""

import importlib.util
from dataclasses import replace

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file, wrong_verdict

from courseware.catalogue import BY_NUMBER

_RUN = "new_run, train = simulated_run(setup, stop, total)\nmodel, optimizer = new_run()\n"
_SAVE = """buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "step": stop,
            "rng": torch.get_rng_state()}, buffer)
"""
_LOAD = "buffer.seek(0)\nstate = torch.load(buffer, weights_only=True)\n"


BANK = {
    "不存优化器状态": _RUN
    + """losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "step": stop, "rng": torch.get_rng_state()}, buffer)
model, optimizer = new_run()
"""
    + _LOAD
    + """model.load_state_dict(state["weights"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "不存随机数状态": _RUN
    + "losses = train(model, optimizer, 0, stop)\n"
    + _SAVE
    + "model, optimizer = new_run()\n"
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
return losses + train(model, optimizer, stop, total - stop)""",
    "先放回随机数再新建模型": _RUN
    + "losses = train(model, optimizer, 0, stop)\n"
    + _SAVE
    + _LOAD
    + """torch.set_rng_state(state["rng"])
model, optimizer = new_run()
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
return losses + train(model, optimizer, stop, total - stop)""",
    "续训从第 0 步算学习率": _RUN
    + "losses = train(model, optimizer, 0, stop)\n"
    + _SAVE
    + "model, optimizer = new_run()\n"
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, 0, total - stop)""",
    "随机数状态在训练前取": _RUN
    + """rng = torch.get_rng_state()
losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": rng}, buffer)
model, optimizer = new_run()
"""
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "捷径：不停下，一直训练": _RUN + "return train(model, optimizer, 0, total)",
    "只留引用，没有真正存下来": _RUN
    + """losses = train(model, optimizer, 0, stop)
state = {"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()}
model, optimizer = new_run()
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "把整个对象存进去，weights_only=False 读回": _RUN
    + """losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"model": model, "optimizer": optimizer, "rng": torch.get_rng_state()}, buffer)
buffer.seek(0)
state = torch.load(buffer, weights_only=False)
torch.set_rng_state(state["rng"])
return losses + train(state["model"], state["optimizer"], stop, total - stop)""",
    "续训少训练一步": _RUN
    + "losses = train(model, optimizer, 0, stop)\n"
    + _SAVE
    + "model, optimizer = new_run()\n"
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop + 1, total - stop - 1)""",
    "权重存成半精度（省一半空间）": _RUN
    + """losses = train(model, optimizer, 0, stop)
buffer = io.BytesIO()
torch.save({"weights": {k: v.half() for k, v in model.state_dict().items()}, "optimizer": optimizer.state_dict(),
            "rng": torch.get_rng_state()}, buffer)
model, optimizer = new_run()
"""
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "优化器状态转成 bfloat16": _RUN
    + """losses = train(model, optimizer, 0, stop)
opt = optimizer.state_dict()
for s in opt["state"].values():
    for k, v in s.items():
        if torch.is_tensor(v) and v.dim() > 0:
            s[k] = v.to(torch.bfloat16)
buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": opt, "rng": torch.get_rng_state()}, buffer)
model, optimizer = new_run()
"""
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "忘了 seek(0)": _RUN
    + "losses = train(model, optimizer, 0, stop)\n"
    + _SAVE
    + """model, optimizer = new_run()
state = torch.load(buffer, weights_only=True)
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "用 deepcopy 代替存档": _RUN
    + """import copy
losses = train(model, optimizer, 0, stop)
state = copy.deepcopy({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()})
model, optimizer = new_run()
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "读档用 weights_only=False": _RUN
    + "losses = train(model, optimizer, 0, stop)\n"
    + _SAVE
    + """model, optimizer = new_run()
buffer.seek(0)
state = torch.load(buffer, weights_only=False)
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    "读档后重设种子，代替放回随机数状态": _RUN
    + "losses = train(model, optimizer, 0, stop)\n"
    + _SAVE
    + "model, optimizer = new_run()\n"
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.manual_seed(setup["seed"])
return losses + train(model, optimizer, stop, total - stop)""",
    "存档写进 pickle": _RUN
    + """import pickle
losses = train(model, optimizer, 0, stop)
data = pickle.dumps({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()})
model, optimizer = new_run()
state = pickle.loads(data)
model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return losses + train(model, optimizer, stop, total - stop)""",
    # 存档就是为了不从头重来：只存了第 0 步、新进程再把全部步数训练一遍，损失也逐位相同，
    # 可调用的是 [(0, stop), (0, total)] 而不是 [(0, stop), (stop, total - stop)]
    "存第 0 步的档，新进程从头再训练一遍": _RUN
    + """buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()}, buffer)
train(model, optimizer, 0, stop)
model, optimizer = new_run()
"""
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return train(model, optimizer, 0, total)""",
    "第一个进程不训练，只存初始状态": _RUN
    + """buffer = io.BytesIO()
torch.save({"weights": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()}, buffer)
model, optimizer = new_run()
"""
    + _LOAD
    + """model.load_state_dict(state["weights"])
optimizer.load_state_dict(state["optimizer"])
torch.set_rng_state(state["rng"])
return train(model, optimizer, 0, total)""",
    # 源码里有 torch.save 与 torch.load(..., weights_only=True)，存下的却是一份空的存档：状态留在内存里的副本里。
    # 批改程序在自己的进程里读回 torch.save 存下的字节，里面没有第 stop 步的参数
    "状态留在内存的副本里，另存一份空的存档": _RUN
    + """losses = train(model, optimizer, 0, stop)
saved = optimizer.state_dict()
kept = {
    "weights": {k: v.clone() for k, v in model.state_dict().items()},
    "optimizer": {
        "state": {k: {n: v.clone() if torch.is_tensor(v) else v for n, v in s.items()} for k, s in saved["state"].items()},
        "param_groups": saved["param_groups"],
    },
    "rng": torch.get_rng_state().clone(),
}
buffer = io.BytesIO()
torch.save({"step": stop}, buffer)
model, optimizer = new_run()
"""
    + _LOAD
    + """model.load_state_dict(kept["weights"])
optimizer.load_state_dict(kept["optimizer"])
torch.set_rng_state(kept["rng"])
return losses + train(model, optimizer, state["step"], total - state["step"])""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(18, name, BANK[name], tmp_path)


def load_solution(number):
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lesson_18_missing_seek_is_named_and_half_precision_is_shown_exactly(tmp_path):
    message = wrong_verdict(18, BANK["忘了 seek(0)"], tmp_path).message
    assert "buffer.seek(0)" in message and "EOFError" in message, message
    path = without_visible_checks(wrong_file(18, BANK["权重存成半精度（省一半空间）"], tmp_path))
    message = verdict_of(18, path).message
    assert "逐位相同" in message and "half" in message, message
    message = wrong_verdict(18, BANK["读档用 weights_only=False"], tmp_path).message
    assert "weights_only=True" in message, message


def test_lesson_18_a_loss_that_differs_points_at_the_random_state_first():
    """损失不逐位相同时，提示先说随机数（少存、放回早了最常见），精度放在最后。"""
    from courseware.grading import lesson_check

    message = lesson_check(BY_NUMBER[18]).compare([2.5, 2.25], [2.5, 2.375])
    assert message.startswith("第 2 步的损失应为 2.25，实际是 2.375"), message
    assert message.index("torch.get_rng_state()") < message.index("优化器") < message.index("half"), message


def test_lesson_18_resumed_losses_equal_the_uninterrupted_run():
    """参考答案读档续训后的损失与一口气训练完逐位相同（用 check.py 的真实诗句用例）。"""
    solution = load_solution(18)
    check = importlib.util.module_from_spec(
        spec := importlib.util.spec_from_file_location("check_18", BY_NUMBER[18].folder / "check.py")
    )
    spec.loader.exec_module(check)
    for setup, stop, total in check.cases(torch.Generator().manual_seed(1))[:6]:
        new_run, train = solution.simulated_run(setup, total, total)
        model, optimizer = new_run()
        straight = train(model, optimizer, 0, total)  # 一口气训练完，不中断
        assert solution.solve(setup, stop, total) == straight


def test_lesson_18_mirrors_the_package_checkpoint(tmp_path):
    """包里的存档也存了练习里那四样（权重、优化器、步数、随机数），./poet train 断点续训的损失与不停下的一样。"""
    from poetry_gpt.checkpoint import read_checkpoint
    from poetry_gpt.train import train
    from poetry_gpt.train_config import PRESETS

    tiny = PRESETS["tiny"]
    config = replace(
        tiny,
        model=dict(tiny.model, dropout=0.1),
        steps=6,
        warmup=2,
        batch_size=8,
        eval_every=3,
        eval_poems=8,
        train_poems=64,
    )
    straight = train(config, tmp_path / "a", progress=False)
    train(config, tmp_path / "b", stop_at=3, progress=False)
    state = read_checkpoint(tmp_path / "b")
    assert {"weights", "optimizer", "step", "rng"} <= set(state) and state["step"] == 3
    assert "blocks.0.attention.causal" not in state["weights"]  # 因果遮挡不存（persistent=False）
    resumed = train(config, tmp_path / "b", resume=True, progress=False)
    assert [e["loss"] for e in resumed.log] == [e["loss"] for e in straight.log]
    assert resumed.log[-1]["val"] == straight.log[-1]["val"]


def test_lesson_18_checkpoint_is_judged_by_the_saved_bytes(tmp_path):
    """状态留在内存的副本里、另存一份空的存档：续训的损失逐位都对，源码里也有 torch.save 与 weights_only=True，
    判的是存下的字节里缺了第 stop 步的参数（批改程序在自己的进程里读回来）。"""
    path = wrong_file(18, BANK["状态留在内存的副本里，另存一份空的存档"], tmp_path)
    source = path.read_text(encoding="utf-8")
    path.write_text(source[: source.index('if __name__ == "__main__":')], encoding="utf-8")  # 删掉底部的可见检查
    verdict = verdict_of(18, path)
    assert verdict.kind == "wrong" and "存档里缺了做完第 0 步时续训要的" in verdict.message, verdict.message
