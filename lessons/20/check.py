"""第 20 课差分检查：随机的替身模型（整数分数，常有并列）和用真实五言绝句数出来的分数表，比较两边贪心写出的编号。"""
import torch

from poetry_gpt.data import load_poems


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _toy(gen, kind):
    """随机的小替身：分数是 -3…3 的整数，同一行常有几个并列最高。kind 轮换四种边界情况。"""
    V, L = _int(gen, 3, 13), _int(gen, 2, 21)
    table = torch.randint(-3, 4, (V, V), generator=gen).float()
    position_table = torch.randint(-2, 3, (L, V), generator=gen).float()
    eos = _int(gen, 0, V)
    n = L if kind == 0 else _int(gen, 1, L + 1)                 # kind 0：prompt 已满 L 个
    if kind == 1:
        position_table[_int(gen, n - 1, L), eos] += 20.0          # kind 1：到某个位置一定写 eos
    if kind == 2:
        table[:, eos] = -10.0                                     # kind 2：从不写 eos，一直写到 L 个
    prompt = torch.randint(0, V, (n,), generator=gen).tolist()
    return table, position_table, prompt, eos


def _corpus_tables():
    """用 val 里的五言绝句数出一个替身：只留 <eos>、，、。和最常见的 80 个字（编号 0–82）。

    table[a, b] = ln(“a 后面紧跟 b”的次数 + 0.1) 按行归一；position_table[p, b] = ln(第 p+1 个位置是 b 的次数 + 0.1) 按行归一。
    """
    poems = [p["text"] for p in load_poems("val") if p["form"] == "五言绝句"]
    counts = {}
    for text in poems:
        for ch in text:
            if ch not in "，。？！":
                counts[ch] = counts.get(ch, 0) + 1
    symbols = ["<eos>", "，", "。"] + sorted(counts, key=lambda ch: (-counts[ch], ch))[:80]
    index = {s: i for i, s in enumerate(symbols)}
    V, L = len(symbols), 64
    pairs, places = torch.zeros(V, V), torch.zeros(L, V)
    for text in poems:
        seq = [index.get(ch) for ch in text.replace("？", "。")] + [0]
        for a, b in zip(seq, seq[1:]):
            if a is not None and b is not None:
                pairs[a, b] += 1
        for p, b in enumerate(seq[1:]):
            if b is not None:
                places[p, b] += 1
    logp = lambda c: torch.log((c + 0.1) / (c + 0.1).sum(1, keepdim=True))  # noqa: E731
    return logp(pairs), logp(places), symbols


def cases(gen):
    """24 个用例：(table [V,V], position_table [L,V], prompt, eos)。

    16 个随机替身（prompt 已满 L 个、一定写出 eos、从不写 eos、一般情况各 4 个）；
    8 个用真实五言绝句数出的替身（V = 83，L = 64，eos 是 0）：prompt 是一首真诗开头的几个编号，
    有的写到 <eos>，有的把 position_table 截短，写到前文长度就停。
    """
    out = [_toy(gen, i % 4) for i in range(16)]
    table, places, symbols = _corpus_tables()
    index = {s: i for i, s in enumerate(symbols)}
    poems = [p["text"] for p in load_poems("val") if p["form"] == "五言绝句"]
    starts = []
    for text in poems:                                          # 每首诗开头落在这 83 个编号里的最长一段
        start = []
        for ch in text[:12]:
            if ch not in index:
                break
            start.append(index[ch])
        if start:
            starts.append(start)
    for i in range(8):
        start = starts[_int(gen, 0, len(starts))]
        prompt = start[: _int(gen, 1, len(start) + 1)]
        L = 64 if i % 2 == 0 else _int(gen, len(prompt), 30)
        out.append((table.clone(), places[:L].clone(), prompt, 0))
    return out
