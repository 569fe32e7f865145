"""第 20、21 课：逐字生成与截断采样的规则，练习的参考答案与包里的函数一致，错误答案过不了检查。"""
import torch

from poetry_gpt.data import BOS, EOS, FIVE, SEP, default_tokenizer
from poetry_gpt.generate import filter_logits, write_one
from poetry_gpt.model import ModelConfig, PoetryGPT

TOK = default_tokenizer()


def kept(t):
    return torch.isfinite(t).tolist()


def test_top_k_keeps_every_tie_with_the_kth_logit():
    logits = torch.tensor([3.0, 2.0, 1.0, 2.0, 0.0])
    assert kept(filter_logits(logits, top_k=2)) == [True, True, False, True, False]  # 留下 3 个
    assert kept(filter_logits(logits, top_k=99)) == [True] * 5


def test_top_p_ties_at_the_boundary_keep_the_smaller_ids():
    # 四个并列的字，概率正好各 1/4：排在前面的概率之和是 0、1/4、1/2、3/4，都能精确表示
    logits = torch.zeros(8)
    logits[4:] = -60.0
    for p, n in ((0.5, 2), (0.5000001, 3), (0.25, 1), (0.75, 3), (0.01, 1)):
        out = kept(filter_logits(logits, top_p=p))
        assert out == [i < n for i in range(8)], (p, out)
    # 与第 k 大分数并列的字留下后，top-p 在剩下的字里重新归一化
    logits = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0, -5.0])
    assert kept(filter_logits(logits, top_k=4, top_p=0.5)) == [False, True, True, False, False, False]


def test_write_one_stops_when_prompt_and_body_fill_the_context():
    """受约束解码写不满前文长度；关掉约束、贪心解码时，前文加正文正好停在 context_length 个位置。"""
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=16, width=32, n_layers=2, n_heads=2)).eval()
    poem = write_one(model, TOK, "月", form=5, temperature=0, constrained=False)
    ids = [BOS, FIVE, TOK.stoi["月"], SEP]
    with torch.no_grad():
        while len(ids) < 16:  # 朴素的循环：每一步重算整段
            token = int(torch.argmax(model(torch.tensor([ids]))[0][0, -1]))
            if token == EOS:
                break
            ids.append(token)
    assert len(ids) == 16, "这个未训练的小模型应当一直写到前文长度"
    assert poem.text == TOK.decode(ids[4:])
