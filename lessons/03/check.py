"""第 03 课差分检查：从真实语料里随机抽几首诗、随机取 k，比较学习者与参考答案的 solve。"""

import torch

from poetry_gpt.data import load_poems


def cases(gen):
    """24 个用例：(texts, k)。texts 是从 poems.jsonl 随机抽的 1–60 首诗的全文，k 在 1–30 之间；
    前两个用例只有一首五言诗、k=30，不同的字不够 k 个；之后每三个用例有一个是三首带问号的诗、k=30，
    其中第一首的句号换成了 ！（语料里一个 ！ 也没有，课文却说它也是标点）。"""
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
                texts[0] = texts[0].replace("。", "！")  # 语料里没有感叹号：把一首诗的句号换成 ！，它也不计
                k = 30
        out.append((texts, k))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    **{f"标点 {mark}（不计）": lambda case, want, mark=mark: any(mark in t for t in case[0]) for mark in "，。？！"},
    "同频的字（按码位排）": lambda case, want: len({n for _, n in want}) < len(want),
    "不同的字不足 k 个": lambda case, want: len(want) < case[1],
    "只有一首诗": lambda case, want: len(case[0]) == 1,
}
