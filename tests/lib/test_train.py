"""训练：学习率表（余弦与 wsd）、参数怎样分给 AdamW 与 Muon、./poet train 走的就是朴素的训练循环、损失下降与续训、按时间分几次训练完、--minutes 照排定的步数训练、
拒绝不合的续训、混合精度、torchrun 下两进程与单进程一致、关键词的丢弃。"""

import os
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from conftest import ROOT

import poetry_gpt.train as train_module
from poetry_gpt.batches import TrainingSamples, batch_indices, encode_split
from poetry_gpt.checkpoint import CHECKPOINT_NAME, CheckpointError, read_checkpoint, save_checkpoint
from poetry_gpt.data import default_tokenizer
from poetry_gpt.devices import fast_bf16, resolve_precision
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.muon import MuonWithAdamW
from poetry_gpt.sittings import LOG_NAME, snapshot_name
from poetry_gpt.time_budget import TooShort
from poetry_gpt.train import (
    build_model,
    decay_start,
    learning_rate,
    make_optimizer,
    resume_without,
    resumed_config,
    train,
    train_loop,
)
from poetry_gpt.train_config import LEARNS_AFTER, PRESETS, TrainConfig

# 比 tiny 更小的数据量，让每个测试只花几秒
QUICK = replace(PRESETS["tiny"], steps=30, eval_every=10, train_poems=1500, eval_poems=64)


def test_learning_rate_warms_up_then_decays_to_the_floor():
    c = TrainConfig(steps=100, warmup=10, lr=1e-3, min_lr_ratio=0.1)
    assert learning_rate(0, c) == pytest.approx(1e-4)
    assert learning_rate(9, c) == pytest.approx(1e-3)
    assert learning_rate(55, c) == pytest.approx(0.55e-3)  # 余弦的正中间：(峰值 + 谷底) / 2
    assert learning_rate(100, c) == pytest.approx(1e-4)
    rates = [learning_rate(s, c) for s in range(10, 101)]
    assert all(a >= b for a, b in zip(rates, rates[1:]))


def test_wsd_holds_the_rate_then_decays_linearly_and_a_longer_run_keeps_the_past():
    c = TrainConfig(steps=100, warmup=10, lr=1e-3, min_lr_ratio=0.1, schedule="wsd", decay_share=0.2)
    assert decay_start(c) == 80
    assert learning_rate(0, c) == pytest.approx(1e-4) and learning_rate(9, c) == pytest.approx(1e-3)
    assert {learning_rate(s, c) for s in range(9, 81)} == {1e-3}  # 持平：预热之后到衰减开始
    assert learning_rate(90, c) == pytest.approx(0.55e-3)  # 衰减段的正中间
    assert learning_rate(100, c) == pytest.approx(1e-4) and learning_rate(150, c) == pytest.approx(1e-4)
    longer = replace(c, steps=300)  # 分几次训练时，衰减开始之前把总步数改大：走过的学习率一个不变
    assert [learning_rate(s, longer) for s in range(80)] == [learning_rate(s, c) for s in range(80)]
    assert learning_rate(239, longer) == 1e-3 and learning_rate(300, longer) == pytest.approx(1e-4)


def test_muon_takes_the_block_matrices_and_adamw_the_rest():
    model = PoetryGPT(ModelConfig(vocab_size=50, width=16, n_layers=2, n_heads=2))
    optimizer = make_optimizer(model, TrainConfig(optimizer="muon"))
    assert isinstance(optimizer, MuonWithAdamW)
    muon = optimizer.parts["muon"].param_groups[0]["params"]
    names = {id(p): n for n, p in model.named_parameters()}
    assert sorted(names[id(p)] for p in muon) == sorted(
        f"blocks.{i}.{m}.weight" for i in range(2) for m in ("attention.qkv", "attention.proj", "mlp.up", "mlp.down")
    )
    adamw = [p for g in optimizer.parts["adamw"].param_groups for p in g["params"]]
    assert {names[id(p)] for p in adamw} >= {"characters.weight", "positions.weight", "norm.weight"}
    assert len(muon) + len(adamw) == len(list(model.parameters()))  # 每个参数恰好一个优化器管
    assert all(g["lr"] == TrainConfig().lr for g in optimizer.param_groups)


def test_weight_decay_only_on_matrices():
    model = PoetryGPT(ModelConfig(vocab_size=50, width=16, n_layers=1, n_heads=2))
    decay, no_decay = make_optimizer(model, TrainConfig()).param_groups
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    assert all(p.dim() == 2 for p in decay["params"]) and all(p.dim() == 1 for p in no_decay["params"])
    assert sum(p.numel() for p in decay["params"] + no_decay["params"]) == model.num_parameters()


def test_batches_depend_only_on_the_step():
    a = batch_indices(7, 1000, 32, seed=26)
    assert a == batch_indices(7, 1000, 32, seed=26) and len(set(a)) == 32
    epoch = [i for s in range(31) for i in batch_indices(s, 1000, 32, seed=26)]
    assert len(set(epoch)) == len(epoch)  # 一轮之内不重复


def test_loss_falls_and_resume_gives_the_same_losses(tmp_path):
    torch.set_num_threads(1)
    whole = train(QUICK, tmp_path / "whole", progress=False)
    first = train(QUICK, tmp_path / "split", stop_at=12, progress=False)
    assert first.step == 12
    second = train(QUICK, tmp_path / "split", resume=True, progress=False)
    assert second.step == 30
    assert [e["loss"] for e in second.log] == [e["loss"] for e in whole.log]
    assert [e.get("val") for e in second.log] == [e.get("val") for e in whole.log]
    losses = [e["loss"] for e in whole.log]
    assert losses[0] > 8.5  # 起点约 ln(6672) ≈ 8.81
    assert whole.log[-1]["val"] < losses[0] - 1.5
    a = read_checkpoint(tmp_path / "whole" / "checkpoint.pt")["weights"]
    b = read_checkpoint(tmp_path / "split" / "checkpoint.pt")["weights"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_train_runs_the_plain_loop_and_only_adds_what_is_beside_it(tmp_path):
    """./poet train 的 train() 走的就是 train_loop 与 train_step：直接跑朴素的循环（默认的 train_step、batch_loss），
    日志与最后的权重逐位相同；train() 多做的存档、进度条、计时都在循环外面。"""
    torch.set_num_threads(1)
    run = train(QUICK, tmp_path, progress=False)
    tok = default_tokenizer()
    model, optimizer = build_model(ModelConfig(vocab_size=len(tok), **QUICK.model), QUICK, torch.device("cpu"))
    samples, val = TrainingSamples(QUICK, tok), encode_split("val", tok, QUICK.eval_poems)
    log = []
    entries = list(train_loop(model, optimizer, QUICK, samples, val, 0, log))
    assert entries == log == run.log and len(log) == QUICK.steps
    assert [e["step"] for e in log if "val" in e] == [10, 20, 30]
    saved = read_checkpoint(tmp_path)["weights"]
    assert all(torch.equal(saved[k], v) for k, v in model.state_dict().items())


def test_resuming_without_the_optimizer_or_the_random_state_parts_from_the_straight_run(tmp_path):
    torch.set_num_threads(1)
    config = replace(QUICK, model=dict(QUICK.model, dropout=0.1), steps=8, eval_every=4, train_poems=512)
    straight = [e["loss"] for e in train(config, tmp_path / "straight", progress=False).log]
    train(config, tmp_path / "stopped", stop_at=4, progress=False)
    state = read_checkpoint(tmp_path / "stopped" / "checkpoint.pt")
    no_opt = resume_without(state, "optimizer", config, tmp_path / "no-optimizer")
    no_rng = resume_without(state, "rng", config, tmp_path / "no-rng")
    for run in (no_opt, no_rng):
        losses = [e["loss"] for e in run.log]
        assert run.step == 8 and len(losses) == 8
        assert losses[:4] == straight[:4]  # 前 4 步是存档里记着的日志
        assert losses[4:] != straight[4:]
    # 换了优化器状态，第 5 步的损失还相同（更新在算损失之后），第 6 步起才不同；换了随机数，dropout 第 5 步就不同
    assert no_opt.log[4]["loss"] == straight[4] and no_opt.log[5]["loss"] != straight[5]
    assert no_rng.log[4]["loss"] != straight[4]
    assert read_checkpoint(tmp_path / "no-rng" / "checkpoint.pt")["step"] == 8
    with pytest.raises(ValueError, match="optimizer、rng"):
        resume_without(state, "weights", config, tmp_path / "no-weights")


@pytest.mark.parametrize("optimizer", ["adamw", "muon"])
def test_a_run_stopped_by_the_clock_resumes_to_the_same_weights(tmp_path, monkeypatch, optimizer):
    """分几次训练完：每步 0.25 秒，--stop-after 0.07 分钟（4.2 秒）在第 17 步（不在验证的步上）停下，
    再接着训练到底，全部权重与从没停过的一样；存档记着两次各从第几步到第几步、用了多久，另存了一份第 17 步的存档。"""
    torch.set_num_threads(1)
    config = replace(QUICK, optimizer=optimizer)
    whole = train(config, tmp_path / "whole", progress=False)
    now = fake_clock(monkeypatch, 0.25)
    first = train(config, tmp_path / "split", stop_after=0.07, progress=False)
    assert first.step == 17 and first.total == 30 and not first.interrupted and now[0] == 4.25
    assert (tmp_path / "split" / snapshot_name(17)).is_file()
    second = train(config, tmp_path / "split", resume=True, stop_after=0.07, progress=False)
    assert second.step == 30 and not (tmp_path / "split" / snapshot_name(30)).exists()  # 走完了就不另存
    assert [e["loss"] for e in second.log] == [e["loss"] for e in whole.log]
    a = read_checkpoint(tmp_path / "whole")["weights"]
    state = read_checkpoint(tmp_path / "split")
    assert all(torch.equal(a[k], state["weights"][k]) for k in a)
    assert [(s["start_step"], s["end_step"], s["seconds"]) for s in state["sittings"]] == [(0, 17, 4.2), (17, 30, 3.2)]
    assert state["sittings"][0]["val"] == whole.log[9]["val"] and state["sittings"][1]["val"] == whole.log[-1]["val"]
    lines = (tmp_path / "split" / LOG_NAME).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 and "第 1 次开始：从头训练，共 30 步" in lines[0] and "停在第 17 步（共 30 步）" in lines[1]
    assert "第 2 次开始：读到存档，在第 17 步（共 30 步）" in lines[2] and "第 2 次结束" in lines[3]


def test_the_start_of_a_sitting_says_where_the_run_stands(tmp_path):
    from poetry_gpt.sittings import Sittings

    log = [{"step": 10000, "val": 4.3}, {"step": 20000, "val": 4.118}]
    earlier = [
        {"start_step": 0, "end_step": 10000, "seconds": 9000.0},
        {"start_step": 10000, "end_step": 20000, "seconds": 9000.0},
    ]
    text = Sittings(tmp_path, 20000, earlier).where_we_stand(40000, log, 150)
    assert text == (
        "第 3 次：从第 20000 步接着训练（共 40000 步，还剩 20000 步）；验证损失最近 4.118（第 20000 步），最好 4.118；"
        "以前 2 次共 5.0 小时，平均每步 0.900 秒，照这个速度还要约 5.0 小时，每次 150 分钟约 2 次"
    )
    assert (
        Sittings(tmp_path, 5, []).where_we_stand(30, [], None) == "第 1 次：从第 5 步接着训练（共 30 步，还剩 25 步）"
    )


def test_minutes_with_stop_after_fixes_the_steps_once(tmp_path, monkeypatch):
    """分几次训练完时 --minutes 只在开头量一次：机器后来变慢，总步数也不再改。第 8 步时还剩 13 秒，每步 0.25 秒，
    一次验证估计为 2 批 × 1/3 步：8 + int((13 − 1/6) / (0.25 + 1/60)) = 56 步。"""
    torch.set_num_threads(1)
    fake_clock(monkeypatch, slowing_down)
    run = train(replace(QUICK, eval_every=10), tmp_path, minutes=0.25, stop_after=0.5, progress=False)
    assert run.total == 56 and run.step == 45  # 0.5 分钟：前 20 步 5 秒，之后每步 1 秒，第 45 步时到 30 秒
    assert read_checkpoint(tmp_path)["train_config"]["steps"] == 56
    first, last = (tmp_path / LOG_NAME).read_text(encoding="utf-8").splitlines()
    assert "总步数按 0.25 分钟排" in first and "共" not in first  # 开始时还没排定：不写预设里的步数
    assert "停在第 45 步（共 56 步）" in last


def slowing_down(step: int) -> float:
    """假钟的一种走法：前 20 步每步 0.25 秒，之后机器变忙、每步 1 秒。"""
    return 0.25 if step <= 20 else 1.0


def fake_clock(monkeypatch, seconds_per_step):
    """把 train 里的钟换成假的：训练循环每取一批（每步一次）走 seconds_per_step 秒，别的时候不走。
    seconds_per_step 也可以是函数：第 n 步（从 1 数）走几秒。"""
    now, taken = [0.0], [0]
    real_batch = TrainingSamples.batch

    def batch(self, step, config):
        taken[0] += 1
        now[0] += seconds_per_step(taken[0]) if callable(seconds_per_step) else seconds_per_step
        return real_batch(self, step, config)

    monkeypatch.setattr(TrainingSamples, "batch", batch)
    monkeypatch.setattr(train_module, "time", SimpleNamespace(monotonic=lambda: now[0]))
    return now


def test_minutes_plans_the_schedule_to_end_at_the_deadline(tmp_path, monkeypatch):
    """每步 0.25 秒、--minutes 0.25（15 秒）：第 8 步时用了 2 秒，还剩 13 秒 → 排定 8 + 52 = 60 步，而不是 QUICK 的 30 步。
    在第 30 步停下再续训：续训按存档里排定的 60 步走完，最后一步的学习率在谷底。"""
    torch.set_num_threads(1)
    now = fake_clock(monkeypatch, 0.25)
    first = train(QUICK, tmp_path, minutes=0.25, stop_at=30, progress=False)
    assert first.step == 30 and first.total == 60 and now[0] == 7.5
    assert read_checkpoint(tmp_path)["train_config"]["steps"] == 60
    run = train(QUICK, tmp_path, resume=True, progress=False)
    assert run.step == run.total == len(run.log) == 60
    assert read_checkpoint(tmp_path)["step"] == 60
    planned = replace(QUICK, steps=60)
    assert [e["lr"] for e in run.log] == [learning_rate(s, planned) for s in range(60)]
    floor = QUICK.lr * QUICK.min_lr_ratio
    assert run.log[-1]["lr"] == pytest.approx(floor, rel=0.01)  # 最后一步已在谷底（第 60 步正好是最低值）
    assert learning_rate(60, planned) == pytest.approx(floor)
    assert "val" in run.log[-1] and run.log[-1]["val"] < run.log[0]["loss"] - 1.5


def test_minutes_is_refused_with_steps_or_resume(tmp_path):
    with pytest.raises(ValueError, match="不能再给 --steps"):
        train(QUICK, tmp_path, steps=10, minutes=1, progress=False)
    with pytest.raises(ValueError, match="不能再给 --minutes"):
        train(QUICK, tmp_path, resume=True, minutes=1, progress=False)


def test_precision_auto_and_a_bf16_run_tracks_fp32(tmp_path):
    cpu = torch.device("cpu")
    assert resolve_precision("auto", cpu) == ("bf16" if fast_bf16(cpu) else "fp32")
    assert resolve_precision("fp32", cpu) == "fp32" and resolve_precision("bf16", cpu) == "bf16"
    with pytest.raises(ValueError, match="不认识的精度"):
        resolve_precision("fp8", cpu)
    assert PRESETS["tiny"].precision == "fp32" and PRESETS["base"].precision == "auto"
    short = replace(QUICK, steps=12, eval_every=12)
    fp32 = train(short, tmp_path / "fp32", progress=False, device="cpu")
    bf16 = train(replace(short, precision="bf16"), tmp_path / "bf16", progress=False, device="cpu")
    a, b = [e["loss"] for e in fp32.log], [e["loss"] for e in bf16.log]
    assert b[-1] < b[0] - 1.0  # bf16 也在学
    assert max(abs(x - y) for x, y in zip(a, b)) < 0.1  # 与 fp32 只差舍入
    assert abs(fp32.log[-1]["val"] - bf16.log[-1]["val"]) < 0.1


def test_two_processes_match_one_process_on_the_combined_batch(tmp_path):
    """torchrun 起 2 个 CPU 进程（gloo），各算半批；一步之后的权重与单进程算整批相同。"""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for name, launcher in (
        ("ddp", [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2", "-m"]),
        ("single", [sys.executable, "-m"]),
    ):
        done = subprocess.run(
            [
                *launcher,
                "courseware.cli",
                "train",
                "--preset",
                "tiny",
                "--steps",
                "2",
                "--device",
                "cpu",
                "--out",
                str(tmp_path / name),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    ddp = read_checkpoint(tmp_path / "ddp" / "checkpoint.pt")
    single = read_checkpoint(tmp_path / "single" / "checkpoint.pt")
    assert ddp["step"] == single["step"] == 2
    for key, value in single["weights"].items():
        assert torch.allclose(ddp["weights"][key], value, atol=1e-5), key
    torch.manual_seed(PRESETS["tiny"].seed)
    start = PoetryGPT(ModelConfig(vocab_size=len(default_tokenizer()), **PRESETS["tiny"].model))
    moved = (single["weights"]["characters.weight"] - start.characters.weight).abs().max()
    assert moved > 1e-3  # 权重真的动了，相等不是因为都没训练


def test_train_refuses_a_file_as_out_and_a_resume_with_another_model_size(tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="已经是一个文件"):
        train(QUICK, tmp_path / "r.csv", progress=False)
    tok = default_tokenizer()
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), **PRESETS["tiny"].model))
    save_checkpoint(
        tmp_path / "run" / "checkpoint.pt",
        model,
        tok,
        optimizer=make_optimizer(model, QUICK),
        step=5,
        config=PRESETS["tiny"],
    )
    with pytest.raises(
        CheckpointError,
        match="里的模型是宽 32、1 层、2 头、前文长度 48，与要训练的宽 128、6 层、4 头、前文长度 64 不同",
    ):
        train(PRESETS["base"], tmp_path / "run", resume=True, progress=False)


def old_train_config(config: TrainConfig) -> dict:
    """以前写的存档里的训练设置：律诗材料的开关存成 verse。"""
    stored = asdict(config)
    stored["verse"] = stored.pop("regulated")
    return stored


def test_a_checkpoint_from_before_the_rename_resumes_with_verse_read_as_regulated(tmp_path):
    state = {"train_config": old_train_config(PRESETS["regulated"]), "optimizer": {}, "rng": {}}
    assert resumed_config(state, Path("old.pt"), PRESETS["regulated"]) == PRESETS["regulated"]  # regulated=True
    tok = default_tokenizer()
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), **QUICK.model))
    out = tmp_path / "run" / "checkpoint.pt"
    save_checkpoint(out, model, tok, optimizer=make_optimizer(model, QUICK), step=5, config=old_train_config(QUICK))
    assert read_checkpoint(out)["train_config"]["verse"] is False
    assert train(QUICK, tmp_path / "run", resume=True, stop_at=7, progress=False).step == 7
    saved = read_checkpoint(out)["train_config"]
    assert "verse" not in saved and saved["regulated"] is False and saved["steps"] == QUICK.steps


def test_minutes_replans_by_the_clock_when_the_machine_slows_down(tmp_path, monkeypatch):
    """前 20 步每步 0.25 秒，之后机器变忙、每步 1 秒：第 8 步排定 60 步，之后按钟表重排，
    训练在截止时刻（15 秒）之后一步之内结束，而不是按 60 步走到 47 秒。"""
    torch.set_num_threads(1)
    now = fake_clock(monkeypatch, slowing_down)
    config = replace(QUICK, eval_every=10)
    run = train(config, tmp_path, minutes=0.25, progress=False)
    assert run.step == run.total < 60
    assert 15 - 1.0 <= now[0] <= 15 + 1.0
    assert read_checkpoint(tmp_path)["train_config"]["steps"] == run.total


def test_minutes_too_short_to_learn_stops_after_measuring_and_writes_no_checkpoint(tmp_path, monkeypatch):
    """每步 4.95 秒、给 10 分钟（像忙着的笔记本上的 base）：只排得出一百多步，少于 min_steps，量完 8 步就停下说明，不写存档。"""
    torch.set_num_threads(1)
    fake_clock(monkeypatch, 4.95)
    with pytest.raises(TooShort, match="10 分钟只走得完 1[12][0-9] 步"):
        train(replace(QUICK, min_steps=LEARNS_AFTER), tmp_path, minutes=10, progress=False)
    assert not (tmp_path / CHECKPOINT_NAME).exists()
    assert "没有训练" in (tmp_path / LOG_NAME).read_text(encoding="utf-8").splitlines()[-1]
    assert (
        PRESETS["base"].min_steps == PRESETS["regulated"].min_steps == LEARNS_AFTER and PRESETS["tiny"].min_steps == 0
    )


def test_minutes_scales_the_warmup_to_the_planned_steps(tmp_path, monkeypatch):
    """预热 100 步的设置只排得出 60 步时，预热按 5% 缩到 10 步（下限），学习率在第 9 步升到峰值，之后降到谷底。"""
    torch.set_num_threads(1)
    fake_clock(monkeypatch, 0.25)
    run = train(replace(QUICK, warmup=100), tmp_path, minutes=0.25, progress=False)
    assert read_checkpoint(tmp_path)["train_config"]["warmup"] == 10
    assert run.log[9]["lr"] == pytest.approx(QUICK.lr) and run.log[-1]["lr"] < QUICK.lr * QUICK.min_lr_ratio * 1.1
    assert read_checkpoint(tmp_path)["train_config"]["steps"] == run.total


def test_keyword_dropout_leaves_a_fixed_tenth_of_train_without_keywords():
    from poetry_gpt.batches import encode_split
    from poetry_gpt.data import SEP, drops_keywords, load_poems

    poems = load_poems("train", 4000)
    dropped = [drops_keywords(p, 0.1) for p in poems]
    assert 0.085 < sum(dropped) / len(poems) < 0.115
    assert not any(drops_keywords(p, 0.0) for p in poems)
    samples = encode_split("train", default_tokenizer(), 4000, keyword_dropout=0.1)
    # 条件区空着的样本是 <bos> <体裁> <sep> 正文…；其余带 1–3 个关键词
    assert [s.index(SEP) == 2 for s in samples] == dropped
    assert all(3 <= s.index(SEP) <= 5 for s, d in zip(samples, dropped) if not d)
    # 随课程发布的模型训练时每首都带关键词：预设不改它
    assert PRESETS["base"].keyword_dropout == 0.0 and PRESETS["tiny"].keyword_dropout == 0.0


def test_finetuning_starts_from_the_given_weights_and_draws_only_that_poets_poems(tmp_path):
    """微调（第 26 课）：第 0 步的权重就是起点模型的，优化器从零开始；取批只取这位诗人在 train 里的诗，验证用他在 val 里的诗。"""
    from poetry_gpt.data import load_poems
    from poetry_gpt.train_config import finetune_config

    tok = default_tokenizer()
    torch.manual_seed(3)
    start = PoetryGPT(ModelConfig(vocab_size=len(tok), **QUICK.model))
    save_checkpoint(tmp_path / "start.pt", start, tok)
    config = finetune_config(QUICK.model, str(tmp_path / "start.pt"), "杨万里", 2181)
    assert (config.steps, config.warmup, config.eval_every) == (69, 3, 17)  # 2181 首读一遍，每步 32 首
    model, optimizer = build_model(ModelConfig(vocab_size=len(tok), **QUICK.model), config, torch.device("cpu"))
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), start.state_dict().values()))
    assert not optimizer.state
    samples, val = train_module._samples(config, tok, announce=False)
    texts = {p["text"] for p in load_poems("train", author="杨万里")}
    assert len(samples.quatrains) == len(texts) == 2181
    assert {record["text"] for record, *_ in samples.quatrains} == texts
    assert len(val) == len(load_poems("val", author="杨万里")) == 108
    wrong = replace(config, model=QUICK.model | {"width": 36, "n_heads": 3})  # 尺寸与起点不同
    with pytest.raises(CheckpointError, match="的模型是宽 32、1 层、2 头、前文长度 48，与要训练的宽 36、1 层、3 头"):
        build_model(ModelConfig(vocab_size=len(tok), **wrong.model), wrong, torch.device("cpu"))
