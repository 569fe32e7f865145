"""bench/time_to_quality.py：两边各训练几秒、在同一批字上计分，JSON 自洽；同一个种子下参考与本项目的初始权重相同；
参考的取批是对齐的 64 字段，计分不受补齐影响。

谁更低不在测试里断言（那要几分钟的训练，由基准脚本报告）。
"""

import json
import math
import subprocess
import sys

import pytest
import torch
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))  # bench/ 不是包：像以脚本运行时那样，把它放进 sys.path
from gpt2_reference import BLOCK, body_stream, reference_batch, reference_model  # noqa: E402
from time_to_quality import score_reference  # noqa: E402

from poetry_gpt.data import EOS, default_tokenizer, load_poems  # noqa: E402
from poetry_gpt.model import ModelConfig, PoetryGPT  # noqa: E402
from poetry_gpt.time_budget import PLAN_AT  # noqa: E402
from poetry_gpt.train_config import PRESETS  # noqa: E402


def test_both_models_train_for_the_budget_and_are_scored_on_the_same_characters():
    # 一个线程：tiny 模型用不上两个，机器忙时两个线程互相等反而更慢
    done = subprocess.run(
        [
            sys.executable,
            "bench/time_to_quality.py",
            "--preset",
            "tiny",
            "--minutes",
            "0.02",
            "--val-poems",
            "16",
            "--threads",
            "1",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["preset"] == "tiny" and result["precision"] == "fp32" and result["threads"] == 1
    assert result["cpu"] and result["val_poems"] == 16
    assert result["keyword_dropout"] == 0.1  # 计分时不给关键词：本项目训练时一成的诗也不带
    val = load_poems("val", 16)
    expected = sum(len(p["text"]) + 1 for p in val)  # 正文的字与标点，每首再加 <eos>
    tiny = PRESETS["tiny"]
    for name in ("ours", "reference", "bigram"):
        r = result[name]
        assert r["scored_chars"] == expected, name
        assert math.isfinite(r["val_nats_per_char"]) and 0 < r["val_nats_per_char"] < result["uniform"], name
        # JSON 里的三个数各自四舍五入到 4 位：用取整后的数重算比值，最后一位可以差 1
        assert r["ratio_to_bigram"] == pytest.approx(
            r["val_nats_per_char"] / result["bigram"]["val_nats_per_char"], abs=2e-4
        )
    for name in ("ours", "reference"):  # 日程走完了：走的步数就是最后排定的步数，且多于量用时的那几步
        r = result[name]
        assert r["steps"] == r["planned_steps"] > PLAN_AT and r["seconds"] > 0, name
    assert result["reference"]["train_chars"] == result["reference"]["steps"] * tiny.batch_size * BLOCK
    per_poem = result["ours"]["train_chars"] / (result["ours"]["steps"] * tiny.batch_size)
    assert 25 <= per_poem <= 33  # 五言 24 + 1，七言 32 + 1
    assert result["ours_below_reference"] == (
        result["ours"]["val_nats_per_char"] < result["reference"]["val_nats_per_char"]
    )


def test_reference_batches_are_aligned_64_character_blocks_of_the_body_stream():
    tok = default_tokenizer()
    poems = load_poems("train", 50)
    stream = body_stream(poems, tok)
    assert stream.tolist()[: len(poems[0]["text"]) + 1] == tok.encode(poems[0]["text"]) + [EOS]
    assert int((stream == EOS).sum()) == len(poems)
    x, y = reference_batch(stream, step=3, batch_size=6, seed=26)
    assert x.shape == y.shape == (6, BLOCK)
    assert torch.equal(x[:, 1:], y[:, :-1])
    for row in x:
        start = next(s for s in range(0, len(stream) - BLOCK, BLOCK) if torch.equal(stream[s : s + BLOCK], row))
        assert start % BLOCK == 0
    again, _ = reference_batch(stream, step=3, batch_size=6, seed=26)
    other, _ = reference_batch(stream, step=4, batch_size=6, seed=26)
    assert torch.equal(x, again) and not torch.equal(x, other)


def test_with_the_same_seed_the_base_reference_starts_from_our_initial_weights():
    base = PRESETS["base"]
    torch.manual_seed(base.seed)  # train() 在建模型前这样设种子
    ours = PoetryGPT(ModelConfig(vocab_size=len(default_tokenizer()), **base.model))
    torch.manual_seed(base.seed)
    reference = reference_model(base, len(default_tokenizer()))
    assert reference.config.context_length == BLOCK and not reference.config.fast_attention
    mine, theirs = ours.state_dict(), reference.state_dict()
    assert mine.keys() == theirs.keys() and all(torch.equal(mine[k], theirs[k]) for k in mine)


def test_reference_score_does_not_depend_on_padding_or_batching():
    tok = default_tokenizer()
    torch.manual_seed(0)
    model = reference_model(PRESETS["tiny"], len(tok)).eval()
    poems = load_poems("val", 12)  # 五言与七言混在一批里，短的要补齐
    assert len({len(p["text"]) for p in poems}) > 1
    together, n = score_reference(model, poems, tok, batch_size=12)
    alone = [score_reference(model, [p], tok, batch_size=1) for p in poems]
    assert n == sum(k for _, k in alone) == sum(len(p["text"]) + 1 for p in poems)
    assert abs(together - sum(s * k for s, k in alone) / n) < 1e-5


def test_bad_minutes_are_refused_in_chinese():
    done = subprocess.run(
        [sys.executable, "bench/time_to_quality.py", "--minutes", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 2 and "--minutes 要大于 0，收到 0" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(
        [sys.executable, "bench/time_to_quality.py", "--keyword-dropout", "1.5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 2 and "--keyword-dropout 最多 1" in done.stderr and "Traceback" not in done.stderr
