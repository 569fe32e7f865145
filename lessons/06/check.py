"""第 06 课差分检查：随机的关键词个数、正文长度与特殊标记编号，比较两边排出的样本与掩码。"""

import torch

from poetry_gpt.data import BOS, EOS, SEP, default_tokenizer


def cases(gen):
    """24 个用例：(form_id, keyword_ids, poem_ids, bos_id, sep_id, eos_id)。

    特殊标记是 0–6 的一个随机排列里的四个；关键词与正文的编号取 7 以上、小于真实汉字表的大小 V，和特殊标记不撞。
    """
    V = len(default_tokenizer())
    out = []
    for i in range(24):
        bos, sep, eos, form = torch.randperm(7, generator=gen)[:4].tolist()
        n_kw = int(torch.randint(0, 4, (1,), generator=gen))
        n_kw = i % 4 if i < 4 else n_kw  # 0–3 个关键词每种至少一次
        n_poem = int(torch.randint(1, 33, (1,), generator=gen))
        keywords = torch.randint(7, V, (n_kw,), generator=gen).tolist()
        poem = torch.randint(7, V, (n_poem,), generator=gen).tolist()
        out.append((form, keywords, poem, bos, sep, eos))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    **{f"{n} 个关键词": lambda case, want, n=n: len(case[1]) == n for n in range(4)},
    "特殊标记不是默认的编号（不能写死）": lambda case, want: tuple(case[3:]) != (BOS, SEP, EOS),
}
