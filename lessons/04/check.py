"""第 04 课差分检查：用真实诗句里的字拼上随机标点，比较学习者与参考答案的 solve。"""
import torch

from poetry_gpt.data import load_poems, poem_body

# 各种标点：要换的 9 个，加上应原样保留的全角标点与括号
PUNCTUATION = list(",.?!;:；：、") + list("，。？！") + list("（）·")


def cases(gen):
    """24 个用例：(text,)。取随机一到两首诗的正文汉字，每个字后面以 1/4 的概率插一个随机标点；
    最后两个用例是只有标点的串和空串。"""
    poems = load_poems()
    out = []
    for _ in range(22):
        n = int(torch.randint(1, 3, (1,), generator=gen))
        picks = torch.randint(len(poems), (n,), generator=gen).tolist()
        chars = []
        for ch in "".join(poem_body(poems[j]["text"]) for j in picks):
            chars.append(ch)
            if torch.rand(1, generator=gen).item() < 0.25:
                chars.append(PUNCTUATION[int(torch.randint(len(PUNCTUATION), (1,), generator=gen))])
        out.append(("".join(chars),))
    marks = torch.randint(len(PUNCTUATION), (30,), generator=gen).tolist()
    out.append(("".join(PUNCTUATION[i] for i in marks),))
    out.append(("",))
    return out
