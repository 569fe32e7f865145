"""第 03 课差分检查：从真实语料里随机抽几首诗、随机取 k，比较学习者与参考答案的 solve。"""
import torch

from poetry_gpt.data import load_poems

HINT = ("先数：counts = Counter(字 for 每首诗 for 每个字 if 字 不是 ，。？！)。"
        "再排：sorted(counts.items(), key=lambda item: (-item[1], item[0]))——"
        "负的次数让多的排前面，次数相同时比较字本身，也就是按码位从小到大。最后切片 [:k]。"
        "不要用 most_common 的顺序当答案：同频的字它按第一次出现的先后排。")


def cases(gen):
    """24 个用例：(texts, k)。texts 是从 poems.jsonl 随机抽的 1–60 首诗的全文，k 在 1–30 之间；
    前两个用例只有一首五言诗、k=30，不同的字不够 k 个。"""
    poems = load_poems()
    five = [p["text"] for p in poems if p["form"] == "五言绝句"]
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
        out.append((texts, k))
    return out
