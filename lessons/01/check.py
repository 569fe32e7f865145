"""第 01 课差分检查：随机抽真实的绝句，比较两边切出的句子与字数。

除了普通的诗，还有三种边角：语料里少见的问号句尾；把一句的 。 换成 ！（语料里没有感叹号，
但练习说了它也是句尾）；把五言和七言的句子交错拼起来，四句不一样长。
"""
import torch

from poetry_gpt.data import load_poems, split_lines


def _pick(gen, items):
    return items[int(torch.randint(len(items), (1,), generator=gen))]


def cases(gen):
    """30 个用例：(text,)。前 15 首从全部语料里抽；再 5 首带问号；5 首把一个句号换成感叹号；
    5 首五言、七言的句子交错（5、7、5、7 或 7、5、7、5 个字）。"""
    poems = load_poems()
    texts = [p["text"] for p in poems]
    asking = [t for t in texts if "？" in t]
    five = [p["text"] for p in poems if p["form"] == "五言绝句"]
    seven = [p["text"] for p in poems if p["form"] == "七言绝句"]
    out = [_pick(gen, texts) for _ in range(15)] + [_pick(gen, asking) for _ in range(5)]
    for _ in range(5):
        text = _pick(gen, texts)
        out.append(text[:-1] + "！" if torch.rand(1, generator=gen).item() < 0.5 else text.replace("。", "！", 1))
    for i in range(5):
        a, b = split_lines(_pick(gen, five)), split_lines(_pick(gen, seven))
        first, second = (a, b) if i % 2 else (b, a)
        out.append("".join(f"{first[j]}，{second[j + 1]}。" for j in (0, 2)))
    return [(text,) for text in out]
