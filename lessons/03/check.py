"""第 03 课差分检查：从真实语料里随机抽几首诗、随机取 k，比较学习者与参考答案的 solve。"""

import torch

from poetry_gpt.data import load_poems


def cases(gen):
    """24 个用例：(texts, k)。texts 是从 poems.jsonl 随机抽的 1–60 首诗的全文，k 在 1–30 之间；
    前两个用例只有一首五言诗、k=30，不同的字不够 k 个；之后每三个用例有一个是三首带问号的诗、k=30。"""
    poems = load_poems()
    five = [p["text"] for p in poems if p["form"] == "五言绝句"]
    asking = [p["text"] for p in poems if "？" in p["text"]]
    out = []
    for i in range(24):
        if i < 2:
            texts = [five[int(torch.randint(len(five), (1,), generator=gen))]]
            k = 30
        else:
            n = int(torch.randint(1, 61, (1,), generator=gen))
            picks = torch.randint(len(poems), (n,), generator=gen).tolist()
            texts = [poems[j]["text"] for j in picks]
            k = int(torch.randint(1, 31, (1,), generator=gen))
            if i % 3 == 0:  # 问号在语料里只出现几十次：专门抽几首带问号的诗，“标点不计”才考得到它
                texts = [asking[j] for j in torch.randint(len(asking), (3,), generator=gen).tolist()]
                k = 30
        out.append((texts, k))
    return out
