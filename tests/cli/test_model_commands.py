"""模型的命令（train、write、eval）：输出、选项与它们的错误、存档的错误、Ctrl-C、80 列的表。"""

import io
import json
import os
import pickle
import re
import subprocess
import sys
from dataclasses import replace

import pytest
import torch
from conftest import ROOT
from rich.cells import cell_len

from courseware.cli import display, main, tables
from courseware.cli.reader_table import READER_ROWS
from poetry_gpt.checkpoint import read_checkpoint, save_checkpoint
from poetry_gpt.data import default_tokenizer
from poetry_gpt.metrics import format_ok
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.time_budget import PLAN_AT
from poetry_gpt.train import learning_rate
from poetry_gpt.train_config import PRESETS

TOK = default_tokenizer()


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=48, width=32, n_layers=2, n_heads=2)).eval()


@pytest.fixture(scope="module")
def checkpoint(model, tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "model.pt"
    save_checkpoint(path, model, TOK, half=True)
    return path


def test_write_command(poet_here, checkpoint):
    done = poet_here("write", "月", "--checkpoint", str(checkpoint), "--seed", "4", "--form", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[:4]
    assert all(len(line) == 6 for line in lines) and "月" in "".join(lines)
    done = poet_here("write", "雪", "-n", "2", "--json", "--checkpoint", str(checkpoint), "--acrostic", "春夏秋冬")
    poems = json.loads(done.stdout)
    assert len(poems) == 2 and all(format_ok(p["text"]) and "雪" in p["text"] for p in poems)
    assert all(p["prosody"]["rhyme"]["rhymes"] and not p["prosody"]["rhyme"]["same_character"] for p in poems)
    assert all(p["condition"] == "冬夏雪" for p in poems)  # 五个字里 IDF 高（少见）的三个


def test_write_keeps_the_best_of_its_drafts_and_lists_them(poet_here, checkpoint):
    """--drafts 8 写 8 份草稿、留下分数最高的一份；--json 列出每份与它的分数，标出留下的那份；
    默认（settings.DRAFTS = 1）只写一份，正是第一份草稿；-n 2 两首各有自己的草稿。"""
    from poetry_gpt.settings import DRAFTS

    def write(*flags):
        done = poet_here("write", "月", "--checkpoint", str(checkpoint), "--seed", "8", "--json", *flags)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    (poem,) = write("--drafts", "8")
    drafts = poem["drafts"]
    assert len(drafts) == 8 and [d["kept"] for d in drafts].count(True) == 1
    kept = next(d for d in drafts if d["kept"])
    assert (kept["text"], kept["score"], kept["seed"]) == (poem["text"], poem["score"], poem["seed"])
    assert poem["score"] == max(d["score"] for d in drafts) == poem["log_prob"]
    (single,) = write()
    assert DRAFTS == 1 and single["text"] == drafts[0]["text"] and single["drafts"] == [] and single["score"] is None
    (again,) = write("--drafts", "1", "--seed", str(kept["seed"]))  # 留下的那份用自己的种子单独写，是同一首
    assert again["text"] == poem["text"]
    two = write("-n", "2", "--drafts", "3")
    assert len({p["text"] for p in two}) == 2 and all(len(p["drafts"]) == 3 for p in two)
    assert two[1]["drafts"][0]["seed"] == 9  # 第二首的草稿从种子 8 + 1 起
    coherent = write("--drafts", "3", "--score", "coherence")[0]
    assert all(d["score"] != d["log_prob"] for d in coherent["drafts"])
    done = poet_here("write", "月", "--checkpoint", str(checkpoint), "--drafts", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--drafts" in done.stderr


def test_write_command_rhyme_and_tones_flags(poet_here, checkpoint):
    """同一个种子：--no-rhyme --tones off 写出的随机模型的诗不押韵，默认的押韵；--tones strict 每字都合格式。"""

    def write(*flags):
        done = poet_here(
            "write", "山", "--checkpoint", str(checkpoint), "--seed", "3", "--form", "7", "-n", "3", "--json", *flags
        )
        assert done.returncode == 0, done.stderr
        return [p["prosody"] for p in json.loads(done.stdout)]

    assert all(r["rhyme"]["rhymes"] and r["tones"]["score"] == 1.0 for r in write())
    loose = write("--no-rhyme", "--tones", "off")
    assert not all(r["rhyme"]["rhymes"] for r in loose) and min(r["tones"]["score"] for r in loose) < 0.9
    assert all(r["tones_strict"]["score"] == 1.0 and r["rhyme"]["rhymes"] for r in write("--tones", "strict"))
    done = poet_here("write", "山", "--checkpoint", str(checkpoint), "--tones", "loose")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "strict" in done.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["abc"], "“a”"),
        (["😀"], "“😀”"),
        ([""], "至少一个汉字"),
        (["月", "--acrostic", "春夏"], "正好 4 个"),
    ],
)
def test_write_command_errors(poet_here, checkpoint, args, message):
    done = poet_here("write", *args, "--checkpoint", str(checkpoint))
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stdout + done.stderr


def test_write_command_checkpoint_errors(poet_here, tmp_path, checkpoint):
    cut = tmp_path / "cut.pt"
    cut.write_bytes(checkpoint.read_bytes()[:1000])
    for path, message in ((tmp_path / "none.pt", "找不到模型存档"), (cut, "不是完整的模型存档")):
        done = poet_here("write", "月", "--checkpoint", str(path))
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_eval_command_json(poet, checkpoint):
    done = poet(
        "eval",
        "--checkpoint",
        str(checkpoint),
        "--prompts",
        "4",
        "--val-poems",
        "40",
        "--json",
        "--drafts",
        "8",
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["prompts"] == 4 and result["val_poems"] == 40
    assert result["format_rate"] == 1.0 and result["keyword_hit_rate"] == 1.0
    assert 5.0 < result["bigram_cross_entropy"] < 6.5  # 第 07 课：约 5.63 奈特/字
    assert result["val_cross_entropy"] > result["bigram_cross_entropy"]  # 随机初始化的模型比基线差
    reader = result["reader"]
    assert [reader[k]["poems"] for k in ("五言", "七言", "藏头", "四个关键词")] == [2, 2, 4, 4]
    assert [result["human"][k]["poems"] for k in ("五言", "七言")] == [2, 2]
    assert reader["藏头"]["format_rate"] == 1.0 and reader["四个关键词"]["keyword_hit"] == 1.0
    assert reader["五言"]["rhyme"] == 1.0 and reader["五言"]["char_3"] == 0.0  # 诗律解码：随机模型也押韵、不乱重复
    # --drafts 8：每首写 8 份草稿、留下最有把握的一份，留下的诗的平均对数概率高于第一份草稿的
    assert result["drafts"] == 8 and result["score"] == "likelihood"
    assert result["log_prob"] > result["log_prob_single"] and result["log_prob"] < 0
    assert 0 < result["distinct_2_single"] <= 1
    done = poet(
        "eval",
        "--checkpoint",
        str(checkpoint),
        "--prompts",
        "4",
        "--val-poems",
        "40",
        "--markdown",
        "--plain",
        timeout=300,
    )
    assert done.returncode == 0 and done.stdout.startswith("| 项目 | 五言（2） | 五言·人（2） |"), (
        done.stdout + done.stderr
    )
    assert len(done.stdout.splitlines()) == 2 + len(READER_ROWS)
    done = poet("eval", "--checkpoint", str(checkpoint), "--prompts", "2", "--val-poems", "10", "--json", "--plain")
    plain = json.loads(done.stdout)  # --plain 每首只写一份：两个平均对数概率是同一批诗的
    assert plain["drafts"] == 1 and plain["log_prob"] == plain["log_prob_single"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--temperature", "nan"], "有限数"),
        (["--temperature", "inf"], "有限数"),
        (["--top-p", "nan"], "top-p"),
        (["--seed", "99999999999999999999"], "种子"),
        (["-n", "1000"], "最多 100"),
    ],
)
def test_write_command_refuses_bad_numbers(poet_here, checkpoint, args, message):
    done = poet_here("write", "月", *args, "--checkpoint", str(checkpoint))
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stdout + done.stderr


def test_write_and_eval_refuse_garbage_and_accept_a_training_folder(poet, tmp_path, checkpoint):
    garbage = tmp_path / "garbage.pt"
    garbage.write_text("hi\n", encoding="utf-8")
    for command in (["write", "月"], ["eval", "--prompts", "1"]):
        done = poet(*command, "--checkpoint", str(garbage))
        assert done.returncode == 2 and "不是完整的模型存档" in done.stderr and "Traceback" not in done.stderr
    raw = tmp_path / "raw.pt"  # pickle.dump 直接写的：中文说明，不印 torch 的英文警告，也不说“被截断”
    raw.write_bytes(pickle.dumps({"model": 1}, protocol=4))
    done = poet("write", "月", "--checkpoint", str(raw))
    assert done.returncode == 2 and "普通的 pickle 文件" in done.stderr and "被截断" not in done.stderr
    assert "Warning" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "checkpoint.pt").write_bytes(checkpoint.read_bytes())
    done = poet("write", "月", "--seed", "4", "--checkpoint", str(tmp_path / "run"))
    assert done.returncode == 0 and "月" in done.stdout, done.stdout + done.stderr
    done = poet("write", "月", "--checkpoint", str(tmp_path))
    assert done.returncode == 2 and "是一个文件夹" in done.stderr


def test_eval_table_fits_80_columns(poet, checkpoint):
    done = poet(
        "eval",
        "--checkpoint",
        str(checkpoint),
        "--prompts",
        "1",
        "--val-poems",
        "10",
        env={"COLUMNS": "80"},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "（第07课）" in re.sub(r"[\s│]", "", done.stdout)  # 折行可以，截掉不行


def test_write_command_takes_a_variant_character(poet_here):
    done = poet_here("write", "鎗", "--json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    poem = json.loads(done.stdout)[0]
    assert "枪" in poem["text"] and "鎗" not in poem["text"]


def test_a_short_real_minutes_run_says_how_many_steps_it_planned(poet, tmp_path):
    """真的训练 3 秒：进度里写出排定的步数，存档走完了最后排定的步数（与最后说出的相差不到一成：小的重排只改进度条）。"""
    done = poet("train", "--minutes", "0.05", "--out", str(tmp_path / "run"), "--device", "cpu")
    assert done.returncode == 0, done.stdout + done.stderr
    said = int(re.findall(r"分钟(?:重新)?排定 (\d+) 步", done.stdout)[-1])
    state = read_checkpoint(tmp_path / "run")
    planned, warmup = state["train_config"]["steps"], state["train_config"]["warmup"]
    assert said > PLAN_AT and state["step"] == planned and abs(planned - said) < 0.1 * said + 1
    # 机器忙时 3 秒只够很少几步，谷底由上面假钟的测试保证；这里看的是日程按排定的步数与预热走
    config = replace(PRESETS["tiny"], steps=planned, warmup=warmup)
    assert state["log"][-1]["lr"] == learning_rate(planned - 1, config)
    done = poet("train", "--minutes", "1", "--steps", "5", "--out", str(tmp_path / "b"))
    assert done.returncode == 2 and "只能选一个" in done.stderr and "Traceback" not in done.stderr


def test_ctrl_c_writes_a_checkpoint_and_exits_cleanly(tmp_path):
    """训练中按 Ctrl-C（SIGINT）：写好存档，退出码 130，没有 Python 错误栈，之后可以续训。"""
    import signal
    import time

    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    ckpt = tmp_path / "checkpoint.pt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "courseware.cli", "train", "--preset", "tiny", "--out", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 600  # 只是不无限等：存档一出现就往下走；机器很忙时 40 步也要好几分钟
    while not ckpt.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)  # 第 40 步验证时会存第一次档
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    step = read_checkpoint(ckpt)["step"]
    if step < PRESETS["tiny"].steps:  # 信号到达时还在训练（机器极忙时也可能已经训完）
        assert proc.returncode == 130 and "已中断" in out, out + err
    assert "Traceback" not in err and step >= 40


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


def test_train_command_stops_a_sitting_and_the_next_one_says_where_the_run_stands(poet, tmp_path):
    """分几次训练完：第一次在第 5 步停下并说怎样接着训练；第二次开始先说走到了哪里；续训不能换学习率与优化器。"""
    out = tmp_path / "run"
    done = poet(
        "train",
        "--steps",
        "8",
        "--stop-at",
        "5",
        "--out",
        str(out),
        "--schedule",
        "wsd",
        "--lr",
        "0.005",
        "--precision",
        "fp32",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hint = " ".join(done.stdout.split())  # 长路径让提示折行
    assert (
        "训练到第 5 步（共 8 步）" in done.stdout and f"--precision fp32 --out {out} --resume" in hint
    )  # 精度不在存档里
    config = read_checkpoint(out)["train_config"]
    assert (config["schedule"], config["lr"], config["steps"]) == ("wsd", 0.005, 8)
    done = poet("train", "--out", str(out), "--resume", "--optimizer", "muon")
    assert done.returncode == 2 and "不能再给 --optimizer" in done.stderr and "Traceback" not in done.stderr
    done = poet("train", "--out", str(out), "--resume")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "第 2 次：从第 5 步接着训练（共 8 步，还剩 3 步）" in done.stdout and "训练到第 8 步（共 8 步）" in done.stdout
    )
    assert [(s["start_step"], s["end_step"]) for s in read_checkpoint(out)["sittings"]] == [(0, 5), (5, 8)]


def test_train_command_takes_a_model_size(poet, tmp_path):
    """第 26 课按预算选的宽度直接交给 ./poet train；接着训练时尺寸要与存档一致。"""
    out = tmp_path / "w36"
    done = poet("train", "--preset", "tiny", "--width", "36", "--n-heads", "3", "--steps", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    assert state["model_config"]["width"] == 36 and state["model_config"]["n_heads"] == 3
    assert "--width 36 --n-heads 3" not in done.stdout  # 训完了，不提示接着训练
    done = poet("train", "--preset", "tiny", "--steps", "4", "--out", str(out), "--resume")
    message = " ".join(done.stderr.split())
    assert (
        done.returncode == 2
        and "里的模型是宽 36、1 层、3 头、前文长度 48，与要训练的宽 32、1 层、2 头、前文长度 48 不同" in message
    )
    assert "相同的 --preset 与尺寸（--width、--n-layers、--n-heads）" in message
    done = poet("train", "--out", str(tmp_path / "none"), "--resume")
    assert done.returncode == 2 and "还没有存档，没有可以接着训练的；去掉 --resume" in done.stderr
    assert not (tmp_path / "none").exists()
    done = poet("train", "--preset", "tiny", "--width", "30", "--n-heads", "4", "--out", str(tmp_path / "bad"))
    assert done.returncode == 2 and "不能被 n_heads=4 整除" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "bad").exists()  # 尺寸不合时不留下空的存档目录


def run_main(monkeypatch, *argv, encoding="utf-8"):
    """在进程里运行 poet，stdout、stderr 换成 encoding 编码的流（stdout 为 strict，stderr 与 Python 一样为
    backslashreplace）。返回 (退出码, stdout 的字节, stderr 的文字)。"""
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="backslashreplace", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse：--help（0）或参数写错（2）
        code = e.code
    return code, out.buffer.getvalue(), err.buffer.getvalue().decode(encoding)


def test_traditional_characters_are_written_as_simplified(monkeypatch):
    code, out, err = run_main(monkeypatch, "write", "風", "--seed", "5", "--form", "5")
    text = out.decode("utf-8")
    assert code == 0, err
    assert "风" in text and "風" not in text


# ---------- ./poet eval 的表在 80 列里 ----------


def test_eval_tables_read_well_at_80_columns(monkeypatch):
    from courseware.cli.reader_table import READER_ROWS

    def group(poems, keywords):
        values = {"pct": 0.875, "num": 0.927, "dist": [0.0, 0.75, 0.25, 0.0]}
        return {
            "poems": poems,
            **{
                key: values[kind]
                for key, _, kind in READER_ROWS
                if keywords or not key.startswith(("keyword", "format"))
            },
        }

    reader = {
        "五言": group(100, True),
        "七言": group(100, True),
        "藏头": group(40, True),
        "四个关键词": group(60, True),
    }
    result = {
        "val_cross_entropy": 4.2,
        "bigram_cross_entropy": 5.85,
        "ratio_to_bigram": 0.718,
        "val_poems": 4000,
        "format_rate": 1.0,
        "format_rate_free": 0.93,
        "keyword_hit_rate": 1.0,
        "keyword_hit_rate_free": 0.6,
        "copy_rate": 0.01,
        "distinct_2": 0.91,
        "seconds_per_poem": 0.09,
        "prompts": 200,
        "rules": {"rhyme": True, "tones": "lenient", "repetition": True},
        "reader": reader,
        "human": {"五言": group(100, False), "七言": group(100, False)},
        "examples": ["床前明月光，疑是地上霜。"],
    }
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(display.console, "_width", 80)
    tables.eval_table(result, "data/model.pt")
    lines = out.buffer.getvalue().decode("utf-8").splitlines()
    assert all(cell_len(line) <= 80 for line in lines)
    grid = lines[next(i for i, line in enumerate(lines) if line.startswith("读者看得到的")) :]
    head = next(line for line in grid if line.startswith("项目"))
    assert head.split() == ["项目", "五言", "五言·人", "七言", "七言·人", "藏头", "关键词"]  # 列名不折断，不带首数
    assert grid[grid.index(head) - 1].split() == ["四个"]  # 长列名分两行
    assert next(line for line in grid if line.startswith("首数")).split() == [
        "首数",
        "100",
        "100",
        "100",
        "100",
        "40",
        "60",
    ]
    for key, label, kind in READER_ROWS:  # 每个行名都在一行里，后面是六个数
        if kind == "dist":
            continue
        row = next(line for line in grid if line.startswith(label)).split()[-6:]
        value = {"pct": "87.5%", "num": "0.927"}[kind]
        human = "–" if key.startswith(("keyword", "format")) else value  # 人写的诗没有关键词与格式这几行
        assert row == [value, human, value, human, value, value], (label, row)
    shares = [line.split()[-6:] for line in grid if line.startswith("给定的字出现")]
    assert shares == [[s, "–", s, "–", s, s] for s in ("0%", "75%", "25%", "0%")]  # 一格四个数拆成四行
    assert "床前明月光，疑是地上霜。" in lines


def test_write_says_it_joined_keywords_given_apart(poet_here):
    """./poet write 月 花：合成“月花”，在标准错误上说出来（--json 的输出里没有这句），诗与 ./poet write 月花 相同。"""
    apart = poet_here("write", "月", "花", "--seed", "3", "--json")
    together = poet_here("write", "月花", "--seed", "3", "--json")
    assert apart.returncode == 0 and "合在一起：“月花”" in apart.stderr, apart.stderr
    texts = [[p["text"] for p in json.loads(run.stdout)] for run in (apart, together)]
    assert texts[0] == texts[1] and "月" in texts[0][0] and "花" in texts[0][0]
    assert "合在一起" not in together.stderr


# ---------- ./poet eval 的进度条 ----------


def test_eval_progress_shows_counts_and_elapsed_time_only_on_a_terminal(monkeypatch):
    """./poet eval 要几分钟：终端上每个阶段一行进度条——做完几批、几首 / 一共几份，已用的时间，还剩多久，80 列放得下；
    输出接到管道或文件里时（--json > 文件）一个字也不多。"""
    from rich.console import Console

    from poetry_gpt.evaluation import CROSS_ENTROPY, POEMS

    for terminal in (True, False):
        buffer = io.StringIO()
        monkeypatch.setattr(display, "console", Console(file=buffer, width=80, force_terminal=terminal))
        with display.stages({CROSS_ENTROPY: "批", POEMS: "首"}) as report:
            for done in range(8):
                report(CROSS_ENTROPY, done, 7)
            for done in range(3):
                report(POEMS, done, 520)
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", buffer.getvalue())
        if not terminal:
            assert shown == ""
            continue
        final = [line for line in shown.splitlines() if line.strip()][-2:]
        assert re.search(r"交叉熵 ━+ +7/7 +批  已用 0:00:0\d 剩", final[0]), final
        assert re.search(r"写诗 +━+ +2/520 首  已用 0:00:0\d 剩", final[1]), final
        assert all(cell_len(line) <= 80 for line in shown.splitlines())


def test_finetune_starts_from_the_given_model_and_uses_one_poets_poems(poet_here, tmp_path, checkpoint):
    """./poet train --author 杨万里 --from 模型：尺寸跟起点模型走，只用这位诗人的诗，最后印微调前后的验证交叉熵；
    分几次训练时接着训练的提示里有 --author 与 --from。"""
    out = tmp_path / "yang"
    done = poet_here(
        "train", "--author", "楊萬里", "--from", str(checkpoint), "--steps", "3", "--stop-at", "2", "--out", str(out)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hint = " ".join(done.stdout.split())
    assert f"--author 杨万里 --from {checkpoint} --out {out} --resume" in hint
    assert "微调前" not in done.stdout  # 没训练完，不比较
    state = read_checkpoint(out)
    assert state["model_config"]["width"] == 32 and state["model_config"]["context_length"] == 48
    assert (state["train_config"]["author"], state["train_config"]["start_from"]) == ("杨万里", str(checkpoint))
    done = poet_here("train", "--author", "杨万里", "--from", str(checkpoint), "--out", str(out), "--resume")
    assert done.returncode == 0, done.stdout + done.stderr
    table = " ".join(done.stdout.split())
    assert "微调前 ┃ 微调后" in table and "杨万里留在 val 里的 108 首" in table and "等距取的 512 首" in table
    assert read_checkpoint(out)["step"] == 3
    for args, message in [  # 续训要同一位诗人、同一个起点；不是微调的存档不能当微调续训
        (
            ("--author", "释印肃", "--from", str(checkpoint)),
            "是微调成杨万里的存档，接着训练请给 --author 杨万里（不能换成释印肃",
        ),
        ((), "是微调成杨万里的存档，接着训练请给 --author 杨万里"),
        (("--author", "杨万里"), f"是从 {checkpoint} 开始微调的，接着训练请给同一个 --from {checkpoint}"),
    ]:
        done = poet_here("train", *args, "--out", str(out), "--resume", "--steps", "5")
        assert done.returncode == 2 and message in " ".join(done.stderr.split()), done.stderr
    assert read_checkpoint(out)["step"] == 3
    tiny = tmp_path / "tiny"
    assert poet_here("train", "--steps", "1", "--out", str(tiny)).returncode == 0
    done = poet_here("train", "--author", "杨万里", "--from", str(checkpoint), "--out", str(tiny), "--resume")
    assert done.returncode == 2 and "不是微调的存档，接着训练时不要给 --author" in done.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (("--author", "王维"), "王维 在 train 里只有 67 首绝句，少于 100 首"),
        (("--author", "杨万"), "语料里没有诗人“杨万”的绝句；名字相近、诗够多的有：杨万里"),
        (("--from", "data/model.pt"), "--from 是微调的起点，要和 --author 一起给"),
        (("--author", "杨万里", "--preset", "base"), "不能再给 --preset"),
        (("--author", "杨万里", "--width", "64", "--n-layers", "2"), "不能再给 --width、--n-layers"),
        (("--author", "杨万里", "--from", "no-such.pt"), "找不到模型存档：no-such.pt"),
        (("--author", "杨万里", "--minutes", "5"), "微调按这位诗人的诗数排步数"),
        (("--author", " "), "--author 不能是空的"),
        (("--author", "杨万里", "--from", ""), "--from 不能是空的"),
    ],
)
def test_finetune_refuses_what_it_cannot_do(poet_here, tmp_path, args, message):
    done = poet_here("train", *args, "--out", str(tmp_path / "ft"))
    assert done.returncode == 2 and message in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "ft").exists()
