"""第 05 课差分检查：随机的几首“小诗”、随机的 min_count 与特殊标记，比较两边建出的编号表。"""

import torch

from poetry_gpt.data import SPECIAL

# 常用字加两种标点；按下面的权重抽，出现次数有多有少，也常有并列
_ALPHABET = "春风花月山水云日人不一天中何时年来无有江夜秋雨鸟，。"


def cases(gen):
    """24 个用例：(texts, min_count, specials)。"""
    weights = torch.linspace(3.0, 0.2, len(_ALPHABET))
    out = []
    for _ in range(24):
        n_texts = int(torch.randint(0, 7, (1,), generator=gen))
        texts = []
        for _ in range(n_texts):
            length = int(torch.randint(1, 15, (1,), generator=gen))
            picks = torch.multinomial(weights, length, replacement=True, generator=gen)
            texts.append("".join(_ALPHABET[i] for i in picks.tolist()))
        min_count = int(torch.randint(1, 5, (1,), generator=gen))
        specials = SPECIAL[: int(torch.randint(1, len(SPECIAL) + 1, (1,), generator=gen))]
        out.append((texts, min_count, specials))
    return out
