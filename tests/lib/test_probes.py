"""probes：沿着一首诗逐格读出的打分与整段前向的相同，行与格对得上。"""

import pytest
import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import BOS, EOS, FIVE, SEP, default_tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.probes import next_token_logits


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
