"""模型：形状、过长输入、因果性、快慢两种注意力一致、KV 缓存一致、weight tying、正弦位置表；
PoetryGPT.parameter_counts（第 14 课的参数表）与真实模型的参数个数一致。"""

import math

import pytest
import torch
from torch.nn import functional as F

from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.model import IGNORE_INDEX, KVCache, ModelConfig, PoetryGPT, sinusoidal_positions

torch.set_num_threads(2)


@pytest.fixture(scope="module")
def batch():
    tok = default_tokenizer()
    return make_batch([encode_sample(p, tok) for p in load_poems("val")[:6]])


def small(**kw):
    torch.manual_seed(0)
    return PoetryGPT(ModelConfig(vocab_size=len(default_tokenizer()), **kw)).eval()


def test_shapes_and_untrained_loss(batch):
    x, y, mask = batch
    model = small()
    logits, loss = model(x)
    assert logits.shape == (*x.shape, len(default_tokenizer())) and loss is None
    same, loss = model(x, y.masked_fill(~mask, IGNORE_INDEX))
    assert torch.equal(same, logits)  # 给了 targets 也照样返回整块 logits，像教科书的模型
    # 刚初始化的模型几乎是均匀猜测：损失接近 ln V
    assert abs(loss.item() - math.log(logits.shape[-1])) < 0.1
    assert torch.allclose(loss, F.cross_entropy(logits[mask], y[mask]), atol=1e-6)
    assert not torch.allclose(loss, F.cross_entropy(logits.flatten(0, 1), y.flatten()), atol=1e-3)  # 掩码真的起作用
    hidden = model.hidden_states(x)
    assert hidden.shape == (*x.shape, model.config.width)
    assert torch.allclose(model.head(hidden), logits)


def test_default_config_and_weight_tying():
    model = small()
    cfg = model.config
    assert (cfg.context_length, cfg.width, cfg.n_layers, cfg.n_heads) == (64, 128, 4, 4)
    assert model.head.weight is model.characters.weight
    assert tuple(model.positions.weight.shape) == (64, 128)
    assert model.num_parameters() == 1_655_552


def test_too_long_input_is_an_error_not_a_cut():
    model = small()
    model(torch.zeros(1, 64, dtype=torch.long))
    with pytest.raises(ValueError, match="超过了前文长度"):
        model(torch.zeros(1, 65, dtype=torch.long))


def test_attention_is_causal(batch):
    x, _, _ = batch
    model = small()
    changed = x.clone()
    changed[:, 10:] = (changed[:, 10:] + 7) % 100 + 10
    a, b = model(x)[0], model(changed)[0]
    assert torch.allclose(a[:, :10], b[:, :10], atol=1e-6)
    assert not torch.allclose(a[:, 10:], b[:, 10:], atol=1e-3)


def test_fast_attention_equals_written_out(batch):
    x, _, _ = batch
    fast, slow = small(fast_attention=True), small(fast_attention=False)
    slow.load_state_dict(fast.state_dict())
    assert torch.allclose(fast(x)[0], slow(x)[0], atol=1e-5)


@pytest.mark.parametrize("fast", [True, False])
def test_kv_cache_gives_the_same_logits(batch, fast):
    x, _, _ = batch
    model = small(fast_attention=fast)
    full = model(x)[0]
    cache = KVCache(model.config.n_layers)
    steps = [model(x[:, :5], kv_cache=cache)[0]] + [
        model(x[:, t : t + 1], kv_cache=cache)[0] for t in range(5, x.shape[1])
    ]
    assert len(cache) == x.shape[1]
    assert torch.allclose(torch.cat(steps, dim=1), full, atol=1e-5)


def test_sinusoidal_table():
    table = sinusoidal_positions(64, 32)
    assert table.shape == (64, 32)
    assert torch.allclose(table[0, 0::2], torch.zeros(16)) and torch.allclose(table[0, 1::2], torch.ones(16))
    assert table[5, 0].item() == pytest.approx(math.sin(5.0), abs=1e-6)


def test_default_model_counts_by_part():
    model = PoetryGPT(ModelConfig(vocab_size=6672))
    assert model.parameter_counts() == {
        "characters": 854_016,
        "positions": 8_192,
        "attention": 264_192,
        "mlp": 526_848,
        "norms": 2_304,
    }
    assert model.num_parameters() == 1_655_552


@pytest.mark.parametrize("V, L, C, layers, heads", [(50, 8, 16, 1, 2), (300, 32, 48, 3, 4), (7, 5, 8, 0, 1)])
def test_counts_by_part_follow_formulas(V, L, C, layers, heads):
    model = PoetryGPT(ModelConfig(vocab_size=V, context_length=L, width=C, n_layers=layers, n_heads=heads))
    counts = model.parameter_counts()
    assert counts == {
        "characters": V * C,
        "positions": L * C,
        "attention": layers * (4 * C * C + 4 * C),
        "mlp": layers * (8 * C * C + 5 * C),
        "norms": (2 * layers + 1) * 2 * C,
    }
    assert sum(counts.values()) == model.num_parameters()


def test_tied_head_is_counted_once():
    model = PoetryGPT(ModelConfig(vocab_size=100, context_length=8, width=16, n_layers=1, n_heads=2))
    assert model.head.weight is model.characters.weight
    listed = sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
    assert listed - model.num_parameters() == 100 * 16  # 不去重时 head.weight 会多算一遍
