"""损失：训练用的分块交叉熵与普通的前向在数值与梯度上一致。"""

import pytest
import torch
from torch.nn import functional as F

from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.loss import chunked_cross_entropy, mean_cross_entropy, scored_loss
from poetry_gpt.model import IGNORE_INDEX, ModelConfig, PoetryGPT


@pytest.fixture(scope="module")
def batch():
    tok = default_tokenizer()
    return make_batch([encode_sample(p, tok) for p in load_poems("val")[:6]])


def small(**kw):
    torch.manual_seed(0)
    return PoetryGPT(ModelConfig(vocab_size=len(default_tokenizer()), **kw)).eval()


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
    samples = [
        row[: int(m.sum()) + 1].tolist() for row, m in zip(x, mask)
    ]  # 仅为有一组样本：mean_cross_entropy 按字数加权
    assert mean_cross_entropy(model, [s for s in samples if len(s) > 1], "cpu") > 0


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
