"""第 02 课差分检查：随机形状的 logits [B,T,V] 与偏置 [V]，比较学习者与参考答案的 solve。"""

import torch

from poetry_gpt.data import default_tokenizer


def cases(gen):
    """24 个用例：(logits [B,T,V], bias [V])。

    每 4 个用例里有 1 个用真实汉字表的大小 V=6672；一半的 logits 是 transpose 出来的不连续张量；
    一半的 bias 里有 -inf（像第 22 课那样禁掉一些字）；每 6 个用例里有 1 个是 float64，结果也要是 float64
    （加法与变形不改 dtype）。
    """
    vocab_size = len(default_tokenizer())
    out = []
    for i in range(24):
        B, T = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9))
        V = vocab_size if i % 4 == 0 else int(torch.randint(2, 40, (1,), generator=gen))
        if i % 2:
            logits = torch.randn(B, V, T, generator=gen).transpose(1, 2)  # [B,T,V]，不连续
        else:
            logits = torch.randn(B, T, V, generator=gen)
        bias = torch.randn(V, generator=gen)
        if i % 4 in (1, 2):
            bias[torch.rand(V, generator=gen) < 0.3] = float("-inf")
        if i % 6 == 5:
            logits, bias = logits.double(), bias.double()
        out.append((logits, bias))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "不连续的 logits（转置出来的）": lambda case, want: not case[0].is_contiguous(),
    "连续的 logits": lambda case, want: case[0].is_contiguous(),
    "bias 里有 -inf（禁掉一些字）": lambda case, want: bool(torch.isinf(case[1]).any()),
    "真实汉字表的大小 V = 6672": lambda case, want: case[0].shape[-1] == len(default_tokenizer()),
    "float64 的 logits（结果也是 float64）": lambda case, want: case[0].dtype == torch.float64,
}
