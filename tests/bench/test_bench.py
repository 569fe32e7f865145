"""bench/train_speed.py：能跑通，JSON 里的数字自洽（速度本身不在测试里断言，只由基准脚本报告）。

基准都用最小的一次（最小的预设、一轮一步、几百首诗、小矩阵）：机器忙时也在几十秒内跑完。"""

import json
import os
import subprocess
import sys

import torch
from conftest import ROOT

from courseware.defaults import CHECK_TIMEOUT_S, REFERENCE_SHARE
from courseware.selfcheck.record import cpu_name


def bench(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """在仓库根目录运行 ``python bench/…``，收下 UTF-8 的输出。"""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=timeout
    )


SMALLEST = ("--rounds", "1", "--steps", "1", "--batch-size", "8", "--precision", "fp32", "--poems", "200")
SMALLEST += ("--matmul-size", "256", "--threads", "1", "--json")


def test_train_speed_bench_reports_both_steps_and_their_ratio():
    done = bench("bench/train_speed.py", "--preset", "tiny", *SMALLEST)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["batch_size"] == 8 and result["precision"] == "fp32" and result["preset"] == "tiny"
    assert result["optimizer"] == "adamw" and result["model"]["width"] == 32
    assert result["matmul_fp32_gflops"] > 0 and result["matmul_bf16_gflops"] > 0
    for name in ("ours", "reference"):
        r = result[name]
        assert r["chars_per_s"] > 0 and r["seconds"] > 0
        assert abs(r["fraction_of_matmul"] - r["gflops"] / result["matmul_fp32_gflops"]) < 0.01
    want = result["ours"]["chars_per_s"] / result["reference"]["chars_per_s"]
    assert abs(result["ratio"] - want) < 0.01


def test_train_speed_bench_takes_the_size_and_optimizer_of_poet_train():
    """长训练的尺寸（宽、层、头）与 Muon 也能量：与 ./poet train 同名的选项换掉预设里的。"""
    sizes = ("--width", "24", "--n-layers", "2", "--n-heads", "3", "--optimizer", "muon")
    done = bench("bench/train_speed.py", "--preset", "tiny", *sizes, *SMALLEST)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["model"] | {"context_length": 0} == {"context_length": 0, "width": 24, "n_layers": 2, "n_heads": 3}
    assert result["optimizer"] == "muon" and result["ours"]["chars_per_s"] > 0
    refused = bench("bench/train_speed.py", "--preset", "tiny", "--width", "25", "--n-heads", "3", *SMALLEST)
    assert refused.returncode == 2 and "不能被头数 3 整除" in refused.stderr and "Traceback" not in refused.stderr


def test_lesson_times_runs_like_poet_lesson_and_compares_threads():
    """bench/lesson_times.py 用 ./poet lesson 的线程数（一个）计时；--against 2 在同一次运行里再用两个线程跑，印出比。"""
    done = subprocess.run(
        [sys.executable, "bench/lesson_times.py", "--lessons", "9", "--against", "2", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    row = result["lessons"][0]
    assert result["threads"] == 1 and row["exit_code"] == 0 and row["against"]["threads"] == 2
    assert row["against"]["exit_code"] == 0 and row["wall_seconds"] > 0
    assert abs(row["ratio"] - row["against"]["wall_seconds"] / row["wall_seconds"]) < 0.1


def test_check_cpu_bench_reports_the_cpu_the_limit_counts():
    """bench/check_cpu.py：参考答案在默认上限下通过，CPU 秒数是时间上限算的那个数（有 cgroup 时记得了），
    比例是它占默认上限的；--lessons 写错时是中文的错误。"""
    done = bench("bench/check_cpu.py", "--lessons", "5", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["timeout_seconds"] == CHECK_TIMEOUT_S and result["reference_share"] == REFERENCE_SHARE
    assert result["cpu"] == cpu_name() and result["cores"] == os.cpu_count()
    (row,) = result["lessons"]
    assert row["lesson"] == "05" and row["verdict"] == "通过"
    if row["cpu_seconds"] is not None:  # 没有 cgroup 时记不了合计
        assert 0 < row["cpu_seconds"] < CHECK_TIMEOUT_S
        assert row["share"] == row["cpu_seconds"] / CHECK_TIMEOUT_S
    wrong = bench("bench/check_cpu.py", "--lessons", "5-x", timeout=120)
    assert wrong.returncode == 2 and "写法不对" in wrong.stderr and "Traceback" not in wrong.stderr


def test_bench_scripts_refuse_non_positive_counts_in_chinese():
    for script in ("bench/train_speed.py", "bench/attention_precision.py"):
        done = bench(script, "--rounds", "0", timeout=120)
        assert done.returncode == 2 and "要是正整数，收到 0" in done.stderr and "Traceback" not in done.stderr


def test_drafts_bench_reports_the_ratio_and_the_shell_time():
    done = bench("bench/drafts.py", "--drafts", "2", "--prompts", "1", "--runs", "1", "--json", timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["drafts"] == 2 and result["prompts"] == 1 and result["same_poems"] is True
    assert abs(result["ratio"] - result["batched_s"] / result["one_by_one_s"]) < 0.01
    assert result["shell_write_s"] > 0 and result["shell_write_one_draft_s"] > 0


def test_write_speed_bench_times_each_size_against_the_shipped_model():
    done = bench("bench/write_speed.py", "--sizes", "64x1", "--runs", "1", "--json")
    assert done.returncode == 0, done.stderr
    shipped, small = json.loads(done.stdout)
    assert shipped["model"] == "发布的模型" and shipped["ratio"] == 1.0 and small["model"] == "宽 64、1 层"
    assert small["parameters"] < shipped["parameters"] and 0 < small["megabytes"] < shipped["megabytes"]
    assert abs(small["ratio"] - small["seconds"] / shipped["seconds"]) < 0.02 and small["seconds"] > 0
    wrong = bench("bench/write_speed.py", "--sizes", "200x6", timeout=120)
    assert wrong.returncode == 2 and "宽度是 32 的正整数倍" in wrong.stderr and "Traceback" not in wrong.stderr


def test_averaging_bench_reports_each_checkpoint_and_their_mean(tmp_path):
    """bench/averaging.py：每个存档一行，外加平均；同一个存档给两遍，平均就是它自己（只差 fp16 的舍入）。"""
    from poetry_gpt.checkpoint import save_checkpoint
    from poetry_gpt.data import default_tokenizer
    from poetry_gpt.model import ModelConfig, PoetryGPT

    tok = default_tokenizer()
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), context_length=64, width=16, n_layers=1, n_heads=2))
    save_checkpoint(tmp_path / "a.pt", model, tok, step=10)
    save_checkpoint(tmp_path / "b.pt", model, tok, step=20)
    done = bench("bench/averaging.py", str(tmp_path / "a.pt"), str(tmp_path / "b.pt"), "--json", timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    steps = [row["step"] for row in result["checkpoints"]]
    ces = [row["val_cross_entropy"] for row in result["checkpoints"]]
    assert steps == [10, 20] and ces[0] == ces[1] and result["val_poems"] > 4000
    assert 7.0 < ces[0] < 10.0  # 没训练过：约 ln V
    assert abs(result["averaged"] - ces[0]) < 1e-2
    assert not list(tmp_path.glob("*.tmp"))
    missing = bench("bench/averaging.py", str(tmp_path / "a.pt"), str(tmp_path / "missing.pt"), timeout=300)
    assert missing.returncode != 0 and "找不到模型存档" in missing.stderr and "Traceback" not in missing.stderr


def test_finetune_bench_records_the_run_and_both_validations(tmp_path):
    """bench/finetune.py：许棐在 train 里正好 100 首（微调的下限），读一遍是 4 步；记录里有步数、他的 val 与全部绝句的
    前后两个数，“前”就是随课程发布的模型自己的数；不够格的诗人在开始之前就被拒绝。"""
    done = bench("bench/finetune.py", "许棐", "--json", str(tmp_path / "f.json"), timeout=600)
    assert done.returncode == 0, done.stderr
    row = json.loads((tmp_path / "f.json").read_text(encoding="utf-8"))["authors"]["许棐"]
    assert (row["train_poems"], row["steps"]) == (100, 4)
    shipped = json.loads((ROOT / "results/finetune.json").read_text(encoding="utf-8"))["authors"]["杨万里"]
    assert row["general_before"] == shipped["general_before"]  # 同一个起点、同一批 512 首
    assert row["author_after"] != row["author_before"] and row["general_after"] != row["general_before"]
    refused = bench("bench/finetune.py", "王维", timeout=120)
    assert refused.returncode == 2 and "只有 67 首绝句" in refused.stderr and "Traceback" not in refused.stderr
