"""训练：学习率表、AdamW 分组、损失下降、存档与续训、--minutes 排定步数、存档错误、torchrun 下两进程与单进程一致。"""
import os
import re
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from poetry_gpt.data import SPECIAL, Tokenizer, default_tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.checkpoint import CheckpointError, load_model, read_checkpoint, save_checkpoint
import poetry_gpt.train as train_module
from poetry_gpt.devices import fast_bf16, resolve_precision
from poetry_gpt.time_budget import PLAN_AT, MinutesPlanner, planned_steps
from poetry_gpt.train import PRESETS, TrainConfig, batch_indices, learning_rate, make_optimizer, train

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def test_planned_steps_fill_the_time_left():
    assert planned_steps(8, 0.25, 298.0) == 1200  # 5 分钟、每步 0.25 秒：第 8 步时还剩 298 秒
    assert planned_steps(8, 0.4, 298.0) == 8 + 745  # 不足一步的零头不算
    assert planned_steps(8, 0.25, -3.0) == 9  # 时间已经用完也再走一步，好存下一个走完日程的存档


def test_minutes_planner_times_steps_2_to_7_then_replans_after_each_validation():
    """5 分钟、第 2 步在第 1 秒开始：第 8 步（第 2.5 秒）量得每步 0.25 秒 → 8 + 297.5 / 0.25 = 1198 步；
    第 200 步（第 60.4 秒，连验证与存档）量得每步 59.4 / 198 = 0.30 秒 → 重排成 200 + int(239.6 / 0.30) = 998 步。
    其余的步不排。"""
    planner = MinutesPlanner(minutes=5, started=0.0, eval_every=200)
    assert planner.replan(0, 0.0) is None and planner.replan(1, 0.5) is None
    assert planner.replan(2, 1.0) is None  # 只记下起点
    assert planner.replan(7, 2.25) is None
    assert planner.replan(8, 2.5) == (0.25, 1198)
    assert planner.replan(9, 2.75) is None and planner.replan(199, 60.0) is None
    per_step, steps = planner.replan(200, 60.4)
    assert per_step == pytest.approx(0.3) and steps == 998
    assert planner.describe(8, 0.25, 1198, warmup=100) == (
        "第 2–7 步平均每步 0.250 秒，5 分钟排定 1198 步：学习率的余弦在第 1198 步降到最低值")
    assert planner.describe(200, 0.3, 80, warmup=100).startswith("第 2–199 步平均每步 0.300 秒，5 分钟重新排定 80 步")
    assert planner.describe(200, 0.3, 80, warmup=100).endswith("比预热的 100 步还短，学习率来不及降下来，请给更多分钟")


def fake_clock(monkeypatch, seconds_per_step):
    """把 train 里的钟换成假的：每取一批（每步一次）走 seconds_per_step 秒，别的时候不走。"""
    now = [0.0]
    real_batch = train_module.make_batch

    def make_batch(samples):
        now[0] += seconds_per_step
        return real_batch(samples)

    monkeypatch.setattr(train_module, "make_batch", make_batch)
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


def test_a_short_real_minutes_run_says_how_many_steps_it_planned(poet, tmp_path):
    """真的训练 3 秒：进度里写出排定的步数，存档走完了这些步。"""
    done = poet("train", "--minutes", "0.05", "--out", str(tmp_path / "run"), "--device", "cpu")
    assert done.returncode == 0, done.stdout + done.stderr
    planned = int(re.findall(r"分钟(?:重新)?排定 (\d+) 步", done.stdout)[-1])  # 每次验证后可能重排：看最后一次
    state = read_checkpoint(tmp_path / "run")
    assert planned > PLAN_AT and state["step"] == state["train_config"]["steps"] == planned
    # 机器忙时 3 秒只够很少几步，谷底由上面假钟的测试保证；这里看的是日程按排定的步数走
    assert state["log"][-1]["lr"] == learning_rate(planned - 1, replace(PRESETS["tiny"], steps=planned))
    done = poet("train", "--minutes", "1", "--steps", "5", "--out", str(tmp_path / "b"))
    assert done.returncode == 2 and "只能选一个" in done.stderr and "Traceback" not in done.stderr


def test_checkpoint_contents_and_errors(tmp_path):
    tok = default_tokenizer()
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), width=16, n_layers=1, n_heads=2))
    path = tmp_path / "c.pt"
    save_checkpoint(path, model, tok, optimizer=make_optimizer(model, TrainConfig()), step=3,
                    config=TrainConfig(), log=[{"step": 1, "loss": 8.8}])
    state = torch.load(path, weights_only=True)
    assert {"weights", "model_config", "vocab_hash", "optimizer", "step", "rng", "log", "train_config"} <= set(state)
    assert state["step"] == 3 and state["vocab_hash"] == tok.vocab_hash
    assert not list(tmp_path.glob(".*.tmp"))  # 临时文件已改名
    loaded, _ = load_model(path, tok)
    x = torch.randint(0, len(tok), (2, 9))
    assert torch.equal(loaded(x)[0], model.eval()(x)[0])

    with pytest.raises(CheckpointError, match="找不到"):
        read_checkpoint(tmp_path / "missing.pt")
    (tmp_path / "cut.pt").write_bytes(path.read_bytes()[:2000])
    with pytest.raises(CheckpointError, match="不是完整的模型存档"):
        read_checkpoint(tmp_path / "cut.pt")
    torch.save({"something": torch.zeros(2)}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="不是本课程的模型存档"):
        read_checkpoint(tmp_path / "other.pt")
    other = Tokenizer(list(SPECIAL) + ["月", "日"])
    with pytest.raises(CheckpointError, match="另一张汉字表"):
        read_checkpoint(path, other)

    half = tmp_path / "half.pt"
    save_checkpoint(half, model, tok, half=True)
    state = torch.load(half, weights_only=True)
    assert "optimizer" not in state and state["weights"]["characters.weight"].dtype == torch.float16


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
    for name, launcher in (("ddp", [sys.executable, "-m", "torch.distributed.run", "--standalone",
                                    "--nproc_per_node=2", "-m"]),
                           ("single", [sys.executable, "-m"])):
        done = subprocess.run([*launcher, "poetry_gpt.courseware.cli", "train", "--preset", "tiny", "--steps", "2",
                               "--device", "cpu", "--out", str(tmp_path / name)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
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


def test_ctrl_c_writes_a_checkpoint_and_exits_cleanly(tmp_path):
    """训练中按 Ctrl-C（SIGINT）：写好存档，退出码 130，没有 Python 错误栈，之后可以续训。"""
    import signal
    import time

    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    ckpt = tmp_path / "checkpoint.pt"
    proc = subprocess.Popen([sys.executable, "-m", "poetry_gpt.courseware.cli", "train", "--preset", "tiny", "--out",
                             str(tmp_path)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 240
    while not ckpt.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)  # 第 40 步验证时会存第一次档
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    step = read_checkpoint(ckpt)["step"]
    if step < PRESETS["tiny"].steps:  # 信号到达时还在训练（机器极忙时也可能已经训完）
        assert proc.returncode == 130 and "已中断" in out, out + err
    assert "Traceback" not in err and step >= 40


def test_any_unreadable_file_is_a_bad_checkpoint_and_a_folder_means_its_checkpoint(tmp_path):
    (tmp_path / "garbage.pt").write_text("hi\n", encoding="utf-8")  # 解包器在这里抛 KeyError
    with pytest.raises(CheckpointError, match="不是完整的模型存档"):
        read_checkpoint(tmp_path / "garbage.pt")
    with pytest.raises(CheckpointError, match="是一个文件夹，里面没有 checkpoint.pt"):
        read_checkpoint(tmp_path)
    tok = default_tokenizer()
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), width=16, n_layers=1, n_heads=2))
    save_checkpoint(tmp_path / "checkpoint.pt", model, tok, step=7)
    assert read_checkpoint(tmp_path)["step"] == 7


def test_broken_weights_half_checkpoints_and_finished_runs_are_refused(tmp_path):
    tok = default_tokenizer()
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), **PRESETS["tiny"].model))
    save_checkpoint(tmp_path / "weights-only" / "checkpoint.pt", model, tok, step=5, config=PRESETS["tiny"], half=True)
    with pytest.raises(CheckpointError, match="只有权重"):  # 导出的模型没有优化器状态
        train(PRESETS["tiny"], tmp_path / "weights-only", resume=True, progress=False)
    save_checkpoint(tmp_path / "done" / "checkpoint.pt", model, tok, optimizer=make_optimizer(model, QUICK),
                    step=30, config=QUICK)
    with pytest.raises(ValueError, match="达到了总步数 30"):
        train(QUICK, tmp_path / "done", resume=True, progress=False)
    state = torch.load(tmp_path / "done" / "checkpoint.pt", weights_only=True)
    del state["vocab_hash"]
    torch.save(state, tmp_path / "no-hash.pt")
    with pytest.raises(CheckpointError, match="缺少或损坏了这些部分：vocab_hash"):
        read_checkpoint(tmp_path / "no-hash.pt")
    with torch.no_grad():
        model.blocks[0].mlp.up.weight[0, 0] = float("nan")  # 发散的训练留下的样子
    save_checkpoint(tmp_path / "nan.pt", model, tok, step=5)
    with pytest.raises(CheckpointError, match="NaN"):
        load_model(tmp_path / "nan.pt", tok)
    (tmp_path / "plain").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="写不进去"):  # 开训之前就发现，不等第一次存档
        train(QUICK, tmp_path / "plain" / "run", progress=False)


def test_train_refuses_a_file_as_out_and_a_resume_with_another_model_size(tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="已经是一个文件"):
        train(QUICK, tmp_path / "r.csv", progress=False)
    tok = default_tokenizer()
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), **PRESETS["tiny"].model))
    save_checkpoint(tmp_path / "run" / "checkpoint.pt", model, tok, optimizer=make_optimizer(model, QUICK),
                    step=5, config=PRESETS["tiny"])
    with pytest.raises(CheckpointError, match="模型尺寸.*不同"):
        train(PRESETS["base"], tmp_path / "run", resume=True, progress=False)


def test_train_command_refuses_to_overwrite(poet, tmp_path):
    (tmp_path / "r.csv").write_text("a,b\n", encoding="utf-8")
    done = poet("train", "--out", str(tmp_path / "r.csv"))
    assert done.returncode == 2 and "已经是一个文件" in done.stderr and "Traceback" not in done.stderr
    done = poet("train", "--out", str(tmp_path / "r.csv" / "run"), "--steps", "1")  # 原因是中文，不是系统的英文原话
    assert done.returncode == 2 and "写不进去（路径里有一段不是文件夹）" in done.stderr, done.stderr
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint.pt").write_bytes(b"old")
    done = poet("train", "--out", str(run), "--steps", "1")
    assert done.returncode == 2 and "已有存档" in done.stderr and "--resume" in done.stderr and "--force" in done.stderr
    assert (run / "checkpoint.pt").read_bytes() == b"old"
    done = poet("train", "--preset", "base", "--out", str(run), "--resume")
    assert done.returncode == 2 and "不是完整的模型存档" in done.stderr and "Traceback" not in done.stderr
    done = poet("train", "--out", str(run), "--steps", "1", "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    assert read_checkpoint(run)["step"] == 1


def test_train_command_takes_a_model_size(poet, tmp_path):
    """第 26 课按预算选的宽度直接交给 ./poet train；接着训练时尺寸要与存档一致。"""
    out = tmp_path / "w36"
    done = poet("train", "--preset", "tiny", "--width", "36", "--n-heads", "3", "--steps", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    assert state["model_config"]["width"] == 36 and state["model_config"]["n_heads"] == 3
    assert "--width 36 --n-heads 3" not in done.stdout  # 训完了，不提示接着训练
    done = poet("train", "--preset", "tiny", "--steps", "4", "--out", str(out), "--resume")
    assert done.returncode == 2 and "'width': 36" in done.stderr and "预设与尺寸" in done.stderr
    done = poet("train", "--preset", "tiny", "--width", "30", "--n-heads", "4", "--out", str(tmp_path / "bad"))
    assert done.returncode == 2 and "不能被 n_heads=4 整除" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "bad").exists()  # 尺寸不合时不留下空的存档目录


def test_minutes_replans_after_each_validation_when_the_machine_slows_down(tmp_path, monkeypatch):
    """前 20 步每步 0.25 秒，之后机器变忙、每步 1 秒：第 8 步排定 60 步，验证后按平均用时重排，
    训练在截止时刻（15 秒）之后一个验证间隔之内结束，而不是按 60 步走到 47 秒。"""
    torch.set_num_threads(1)
    now = [0.0]
    real_batch = train_module.make_batch
    steps_taken = [0]

    def make_batch(samples):
        steps_taken[0] += 1
        now[0] += 0.25 if steps_taken[0] <= 20 else 1.0
        return real_batch(samples)

    monkeypatch.setattr(train_module, "make_batch", make_batch)
    monkeypatch.setattr(train_module, "time", SimpleNamespace(monotonic=lambda: now[0]))
    config = replace(QUICK, eval_every=10)
    run = train(config, tmp_path, minutes=0.25, progress=False)
    assert run.step == run.total < 60
    assert now[0] <= 15 + config.eval_every * 1.0
    assert read_checkpoint(tmp_path)["train_config"]["steps"] == run.total


def test_keyword_dropout_leaves_a_fixed_tenth_of_train_without_keywords():
    from poetry_gpt.data import SEP, drops_keywords, load_poems
    from poetry_gpt.train import encode_split
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
