"""二元基线（poetry_gpt/bigram.py）：概率归一、交叉熵的范围，与逐字手算的结果一致。"""

import math
from collections import Counter

import pytest
import torch

from poetry_gpt.bigram import DEFAULT_K, BigramModel, bigram_baseline, scored_pairs
from poetry_gpt.data import EOS, SEP, default_tokenizer, encode_sample, keywords_for, load_poems, loss_mask_for


@pytest.fixture(scope="module")
def model():
    return BigramModel.fit(load_poems("train"), default_tokenizer(), DEFAULT_K)


def test_rows_sum_to_one(model):
    tok = default_tokenizer()
    for prev in [SEP, tok.stoi["月"], tok.stoi["，"], tok.stoi["。"], 0, len(tok) - 1]:
        row = model.next_distribution(prev)
        assert row.shape == (len(tok),)
        assert abs(row.double().sum().item() - 1.0) < 1e-5
        assert (row > 0).all()
        # 整行与逐个查的概率一致
        targets = torch.arange(len(tok))
        assert torch.allclose(model.probability(torch.full_like(targets, prev), targets), row, rtol=1e-5)


def test_counts_cover_every_scored_pair(model):
    prev, target = scored_pairs(load_poems("train"), default_tokenizer())
    assert model.counts.sum().item() == len(prev)
    assert torch.all(model.keys[1:] > model.keys[:-1])
    # 每首诗恰好有一个目标是 <eos>、一对以 <sep> 开头
    V = len(default_tokenizer())
    assert model.counts[model.keys % V == EOS].sum().item() == len(load_poems("train"))
    assert model.row_totals[SEP].item() == len(load_poems("train"))


def test_val_cross_entropy_is_a_sensible_baseline(model):
    ce = model.cross_entropy("val")
    V = len(default_tokenizer())
    assert 5.0 < ce < 6.2, ce
    assert ce < math.log(V) - 2.5  # 比“每个字等概率”好得多
    assert abs(bigram_baseline("val") - ce) < 1e-9
    # k 是在 val 上挑的：旁边两档都更差
    assert model.with_k(DEFAULT_K / 3).cross_entropy("val") > ce
    assert model.with_k(DEFAULT_K * 3).cross_entropy("val") > ce


def test_matches_brute_force_on_a_small_slice():
    tok = default_tokenizer()
    train, held_out = load_poems("train")[:300], load_poems("val")[:40]
    k = 0.5
    fitted = BigramModel.fit(train, tok, k)

    def pairs(poems):  # 带真实关键词排布，逐个看掩码：与 GPT 训练时完全一样
        for record in poems:
            ids = encode_sample(record, tok, keywords_for(record, tok))
            for t, scored in enumerate(loss_mask_for(ids)):
                if scored:
                    yield ids[t], ids[t + 1]

    counts = Counter(pairs(train))
    totals = Counter()
    for (i, _), n in counts.items():
        totals[i] += n
    V = len(tok)
    losses = [-math.log((counts[(i, j)] + k) / (totals[i] + k * V)) for i, j in pairs(held_out)]
    assert len(losses) == sum(len(encode_sample(r, tok, ())) - 3 for r in held_out)  # 正文 + <eos>
    assert fitted.cross_entropy(held_out) == pytest.approx(sum(losses) / len(losses), abs=1e-6)


def test_smoothing_must_be_positive():
    with pytest.raises(ValueError, match="k"):
        BigramModel.fit(load_poems("val")[:5], default_tokenizer(), 0.0)


def test_sample_is_reproducible_text(model):
    a = model.sample("五言绝句", "月", generator=torch.Generator().manual_seed(3))
    b = model.sample("五言绝句", "月", generator=torch.Generator().manual_seed(3))
    assert a == b and len(a) > 0
    assert all(ch in default_tokenizer() for ch in a)  # 没有特殊标记、没有 <unk>
