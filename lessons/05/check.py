"""第 05 课差分检查：随机的几首“小诗”、随机的 min_count 与特殊标记，比较两边建出的编号表。"""

import torch

from poetry_gpt.data import SPECIAL

# 常用字加两种标点；按下面的权重抽，出现次数有多有少，也常有并列
_ALPHABET = "春风花月山水云日人不一天中何时年来无有江夜秋雨鸟，。"


def cases(gen):
    """24 个用例：(texts, min_count, specials)。"""
    weights = torch.linspace(3.0, 0.2, len(_ALPHABET))
    out = []
    for i in range(24):
        n_texts = int(torch.randint(0, 7, (1,), generator=gen))
        texts = []
        for _ in range(n_texts):
            length = int(torch.randint(1, 15, (1,), generator=gen))
            picks = torch.multinomial(weights, length, replacement=True, generator=gen)
            texts.append("".join(_ALPHABET[i] for i in picks.tolist()))
        min_count = int(torch.randint(1, 5, (1,), generator=gen))
        if i % 6 == 0:  # 标点也算字：造一首标点出现得够多的，它一定进表
            texts.append("，。" * min_count)
        specials = SPECIAL[: int(torch.randint(1, len(SPECIAL) + 1, (1,), generator=gen))]
        out.append((texts, min_count, specials))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "texts 是空列表（只有特殊标记）": lambda case, want: case[0] == [],
    "有字次数不到 min_count（不收）": lambda case, want: any(ch not in want for t in case[0] for ch in t),
    "同频的字（按码位排）": lambda case, want: any(
        sum(t.count(a) for t in case[0]) == sum(t.count(b) for t in case[0])
        for a, b in zip(want[len(case[2]) :], want[len(case[2]) + 1 :])
    ),
    "标点也算字": lambda case, want: "，" in want or "。" in want,
    "min_count = 1（出现一次就收）": lambda case, want: case[1] == 1 and case[0] != [],
}
