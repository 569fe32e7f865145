"""存档：内容与错误、读不了的文件、坏掉的权重与半截存档、与配置或汉字表对不上的存档、带代码的 pickle。"""

import io
import re
import sys
from dataclasses import replace

import pytest
import torch

from courseware.cli import main
from poetry_gpt.checkpoint import (
    CheckpointError,
    export_model,
    load_model,
    read_checkpoint,
    save_checkpoint,
    stored_sizes,
)
from poetry_gpt.data import SPECIAL, Tokenizer, default_tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.train import make_optimizer, train
from poetry_gpt.train_config import PRESETS, TrainConfig

# 比 tiny 更小的数据量，让每个测试只花几秒
QUICK = replace(PRESETS["tiny"], steps=30, eval_every=10, train_poems=1500, eval_poems=64)


def test_checkpoint_contents_and_errors(tmp_path):
    tok = default_tokenizer()
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), width=16, n_layers=1, n_heads=2))
    path = tmp_path / "c.pt"
    save_checkpoint(
        path,
        model,
        tok,
        optimizer=make_optimizer(model, TrainConfig()),
        step=3,
        config=TrainConfig(),
        log=[{"step": 1, "loss": 8.8}],
    )
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


def test_stored_sizes_count_the_shared_table_once_and_the_two_adamw_moments(tmp_path):
    tok = default_tokenizer()
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), context_length=16, width=16, n_layers=1, n_heads=2))
    optimizer = make_optimizer(model, TrainConfig())
    x = torch.randint(0, len(tok), (2, 9))
    model(x, x)[1].backward()
    optimizer.step()  # 走过一步，AdamW 才有 exp_avg、exp_avg_sq
    save_checkpoint(tmp_path / "c.pt", model, tok, optimizer=optimizer, step=1)
    sizes = stored_sizes(read_checkpoint(tmp_path / "c.pt", tok))
    # V·C + L·C + 每层 12C² + 13C + 最后的 LayerNorm 2C；head 与 characters 是同一张表，不另算
    n = len(tok) * 16 + 16 * 16 + (12 * 16 * 16 + 13 * 16) + 2 * 16
    assert sizes.parameters == model.num_parameters() == n
    assert sizes.tensors == len(list(model.parameters())) == len(model.state_dict()) - 1  # head.weight 不另存
    assert sizes.weight_bytes == 4 * n  # fp32
    assert sizes.optimizer_bytes == 2 * 4 * n  # 两份滑动平均各和权重一样大；标量的 step 不算

    save_checkpoint(tmp_path / "half.pt", model, tok, half=True)
    half = stored_sizes(read_checkpoint(tmp_path / "half.pt", tok))
    assert (half.parameters, half.weight_bytes, half.optimizer_bytes) == (n, 2 * n, 0)  # fp16、没有优化器
    with pytest.raises(KeyError):
        stored_sizes({"step": 1})


def test_export_averages_the_weights_of_several_checkpoints_and_keeps_the_last_ones_log(tmp_path):
    tok = default_tokenizer()
    size = dict(vocab_size=len(tok), context_length=16, width=16, n_layers=1, n_heads=2)
    paths = []
    for step in (1, 2, 3):
        torch.manual_seed(step)
        model = PoetryGPT(ModelConfig(**size))
        paths.append(tmp_path / f"step-{step}.pt")
        save_checkpoint(paths[-1], model, tok, step=step, log=[{"step": step, "loss": 9.0 - step}])
    export_model(paths, tmp_path / "avg.pt")
    state = read_checkpoint(tmp_path / "avg.pt", tok)
    assert (state["step"], state["log"]) == (3, [{"step": 3, "loss": 6.0}])
    assert "optimizer" not in state and state["weights"]["blocks.0.mlp.up.weight"].dtype == torch.float16
    weights = [read_checkpoint(p, tok)["weights"] for p in paths]
    for name in ("characters.weight", "blocks.0.mlp.up.weight", "blocks.0.attention.qkv.weight"):
        mean = (weights[0][name] + weights[1][name] + weights[2][name]) / 3
        assert torch.equal(state["weights"][name], mean.half()), name
        assert not torch.equal(state["weights"][name], weights[2][name].half())  # 不是只取了最后一个
    averaged, _ = load_model(tmp_path / "avg.pt", tok)
    assert averaged.head.weight is averaged.characters.weight  # 输入输出仍共用一张表

    export_model(paths[0], tmp_path / "one.pt")  # 只给一个存档：照旧只转成 fp16
    one = read_checkpoint(tmp_path / "one.pt", tok)["weights"]["characters.weight"]
    assert torch.equal(one, weights[0]["characters.weight"].half())
    wider = PoetryGPT(ModelConfig(**(size | {"width": 32})))
    save_checkpoint(tmp_path / "wider.pt", wider, tok, step=4)
    with pytest.raises(CheckpointError, match="模型尺寸与 .* 不同"):
        export_model([paths[0], tmp_path / "wider.pt"], tmp_path / "bad.pt")
    assert not (tmp_path / "bad.pt").exists()


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
    save_checkpoint(
        tmp_path / "done" / "checkpoint.pt", model, tok, optimizer=make_optimizer(model, QUICK), step=30, config=QUICK
    )
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


TOK = default_tokenizer()


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


# ---------- 与配置或汉字表对不上的存档 ----------


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=48, width=16, n_layers=2, n_heads=2))
    path = tmp_path_factory.mktemp("ckpt") / "honest.pt"
    save_checkpoint(path, model, TOK, step=3)
    return path


def doctored(honest, tmp_path, change) -> str:
    state = torch.load(honest, weights_only=True)
    change(state)
    path = tmp_path / "doctored.pt"
    torch.save(state, path)
    return str(path)


@pytest.mark.parametrize(
    "change, words",
    [
        (
            lambda s: s["model_config"].update(width=32),
            f"characters.weight 形状是 [{len(TOK)}, 16]，按它记录的模型尺寸应是 [{len(TOK)}, 32]",
        ),
        (lambda s: s["model_config"].update(context_length=64), "positions.weight 形状是 [48, 16]"),
        (
            lambda s: s["model_config"].update(vocab_size=len(TOK) + 1),
            f"vocab_size 是 {len(TOK) + 1}，当前 data/vocab.json 有 {len(TOK)} 个字",
        ),
        (
            lambda s: s["weights"].update({"characters.weight": torch.zeros(len(TOK) - 1, 16)}),
            f"characters.weight 形状是 [{len(TOK) - 1}, 16]",
        ),
        (
            lambda s: s["weights"].update({"blocks.1.mlp.up.weight": torch.zeros(3, 16)}),
            "blocks.1.mlp.up.weight 形状是 [3, 16]，按它记录的模型尺寸应是 [64, 16]",
        ),
        (lambda s: s["weights"].pop("blocks.0.mlp.up.bias"), "多出或缺少 blocks.0.mlp.up.bias"),
        (lambda s: s["weights"].update({"positions.weight": [1, 2]}), "positions.weight 不是张量"),
        (lambda s: s["model_config"].update(n_layers=10**9), "model_config 损坏了"),  # 不会真去建十亿层
        (lambda s: s["model_config"].update(n_heads=3), "model_config 损坏了"),
        (lambda s: s["model_config"].update(extra=1), "model_config 损坏了"),
    ],
)
def test_checkpoints_that_disagree_with_their_config_or_the_vocabulary_are_refused(
    monkeypatch, honest, tmp_path, change, words
):
    path = doctored(honest, tmp_path, change)
    assert torch.load(path, weights_only=True)["vocab_hash"] == TOK.vocab_hash  # 指纹对得上，仍要拒绝
    with pytest.raises(CheckpointError, match=re.escape(words)):
        read_checkpoint(path, TOK)
    code, _, err = run_main(monkeypatch, "write", "月", "--checkpoint", path)
    assert code == 2 and words in err and "不能使用" in err, err
    assert "Traceback" not in err and "size mismatch" not in err


def test_an_honest_checkpoint_still_loads_and_reading_it_leaves_the_random_state_alone(honest):
    model, state = load_model(honest, TOK)
    torch.manual_seed(1)
    before = torch.get_rng_state()
    read_checkpoint(honest, TOK)
    assert torch.equal(torch.get_rng_state(), before)  # 检查形状时建的模型不动全局随机数（各课实验的输出靠它）
    assert state["step"] == 3 and model.config.width == 16


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
