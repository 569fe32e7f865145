"""probes：各头给上一个位置的平均权重；沿着一首诗逐格读出的打分与整段前向的相同，行与格对得上。"""

import pytest
import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import BOS, EOS, FIVE, SEP, default_tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.probes import attention_weights, next_token_logits, previous_position_weight


def test_previous_position_weight_averages_the_cell_left_of_each_row():
    # 两个头、3 行（第 2、3、4 个位置）、5 列：头 0 每行都全看上一个位置，头 1 平均分给能看到的位置
    w = torch.zeros(2, 3, 5)
    for t in range(3):
        w[0, t, 2 + t - 1] = 1.0
        w[1, t, : 2 + t + 1] = 1 / (2 + t + 1)
    prev = previous_position_weight(w, start=2)
    assert prev.shape == (2,)
    assert torch.allclose(prev, torch.tensor([1.0, (1 / 3 + 1 / 4 + 1 / 5) / 3]))
    with pytest.raises(ValueError, match="start 至少是 1"):
        previous_position_weight(w, start=0)


def test_the_shipped_model_has_a_head_that_looks_at_the_previous_character():
    tok = default_tokenizer()
    model, _ = load_model()
    ids = torch.tensor([[BOS, FIVE] + tok.encode("月") + [SEP] + tok.encode("白日依山尽")])
    uniform = sum(1 / (4 + t + 1) for t in range(5)) / 5  # 平均分给能看到的位置时
    best = []
    for layer in range(model.config.n_layers):
        w = attention_weights(model, ids, layer=layer)[0, :, 4:]  # [H, 5, 9]：正文 5 行
        prev = previous_position_weight(w, start=4)  # [H]
        by_hand = torch.tensor([sum(w[h, t, 4 + t - 1].item() for t in range(5)) / 5 for h in range(len(w))])
        assert torch.allclose(prev, by_hand)
        best.append(prev.max().item())
    # 训练出了一个专看上一个字的头；在哪一层是训练定的（发布的模型：第 1 层，第 10 课）
    assert max(best) > 2 * uniform


def test_next_token_logits_row_i_is_the_full_forward_at_the_cell_of_token_i():
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=50, context_length=12, width=16, n_layers=2, n_heads=2)).eval()
    prompt, tokens = [1, 2, 3], [7, 8, 9, 10, 11]
    logits = next_token_logits(model, prompt, tokens)
    assert logits.shape == (len(tokens) + 1, 50)
    with torch.no_grad():
        full = model(torch.tensor([prompt + tokens]))[0][0]  # [8, 50]
    # 第 i 行是读完 prompt 与 tokens[:i] 之后，即整段前向里位置 len(prompt) - 1 + i 的打分
    assert torch.allclose(logits, full[len(prompt) - 1 :], atol=1e-5)
    assert not torch.allclose(logits[1:], full[len(prompt) - 2 : -2], atol=1e-3)  # 错一格就对不上

    with pytest.raises(ValueError, match="空"):
        next_token_logits(model, [], tokens)
    with pytest.raises(ValueError, match="13 个位置"):
        next_token_logits(model, prompt, list(range(10)))


def test_the_shipped_model_reading_a_whole_quatrain_expects_eos_after_it():
    tok = default_tokenizer()
    model, _ = load_model()
    text = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"
    logits = next_token_logits(model, [BOS, FIVE] + tok.encode("山") + [SEP], tok.encode(text))
    probs = torch.softmax(logits, -1)
    assert int(probs[-1].argmax()) == EOS  # 写满四句，最想写的是 <eos>
    assert int(probs[5].argmax()) == tok.stoi["，"]  # 第一句写满五个字，最想写逗号
    assert probs[-1, EOS] > 0.9 and probs[5, tok.stoi["，"]] > 0.9
