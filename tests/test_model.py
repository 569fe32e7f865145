"""模型：形状、分块交叉熵、过长输入、因果性、快慢两种注意力一致、KV 缓存一致、weight tying。"""
import math

import pytest
import torch
from torch.nn import functional as F

from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.loss import chunked_cross_entropy, evaluate, scored_loss
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


def test_training_loss_equals_the_plain_forward_in_value_and_gradient(batch):
    """训练步的 scored_loss（只在计分位置、分块）与 forward 的掩码交叉熵相同，梯度也相同。"""
    x, y, mask = batch
    model = small().train()
    _, plain = model(x, y.masked_fill(~mask, IGNORE_INDEX))
    plain.backward()
    want = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    fast = scored_loss(model, x, y, mask)
    fast.backward()
    assert torch.allclose(fast, plain, atol=1e-5)
    for name, p in model.named_parameters():
        assert torch.allclose(p.grad, want[name], atol=1e-6), name
    samples = [row[: int(m.sum()) + 1].tolist() for row, m in zip(x, mask)]  # 仅为有一组样本：evaluate 按字数加权
    assert evaluate(model, [s for s in samples if len(s) > 1], "cpu") > 0


@pytest.mark.parametrize("n", [1, 255, 256, 700])
def test_chunked_cross_entropy_matches_plain(n):
    """分块算的损失与梯度与 F.cross_entropy(hidden @ weight.T) 相同；块的边界（n 不是块长的整数倍）也对。"""
    torch.manual_seed(n)
    hidden = torch.randn(n, 32, requires_grad=True)
    weight = torch.randn(500, 32, requires_grad=True)
    targets = torch.randint(0, 500, (n,))
    plain = F.cross_entropy(hidden @ weight.T, targets)
    plain.backward()
    want = hidden.grad.clone(), weight.grad.clone()
    hidden.grad = weight.grad = None
    chunked = chunked_cross_entropy(hidden, weight, targets, chunk_size=256)
    (3 * chunked).backward()  # 传回来的系数也要乘上
    assert torch.allclose(chunked, plain, atol=1e-5)
    assert torch.allclose(hidden.grad, 3 * want[0], atol=1e-6)
    assert torch.allclose(weight.grad, 3 * want[1], atol=1e-6)
    with torch.no_grad():  # 不需要梯度时只算损失
        assert torch.allclose(chunked_cross_entropy(hidden, weight, targets), plain, atol=1e-5)
    hidden.grad = weight.grad = None
    with torch.autocast("cpu", dtype=torch.bfloat16):  # 矩阵乘法用 bf16，softmax 仍是 fp32：误差在 bf16 的精度内
        low = chunked_cross_entropy(hidden, weight, targets)
    low.backward()
    assert low.dtype == torch.float32 and abs(low.item() - plain.item()) < 0.05 * plain.item()
    assert torch.allclose(hidden.grad, want[0], atol=0.02 * want[0].abs().max().item())


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
    steps = [model(x[:, :5], kv_cache=cache)[0]] + [model(x[:, t:t + 1], kv_cache=cache)[0] for t in range(5, x.shape[1])]
    assert len(cache) == x.shape[1]
    assert torch.allclose(torch.cat(steps, dim=1), full, atol=1e-5)


def test_sinusoidal_table():
    table = sinusoidal_positions(64, 32)
    assert table.shape == (64, 32)
    assert torch.allclose(table[0, 0::2], torch.zeros(16)) and torch.allclose(table[0, 1::2], torch.ones(16))
    assert table[5, 0].item() == pytest.approx(math.sin(5.0), abs=1e-6)
