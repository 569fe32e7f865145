"""第 22 课差分检查：真实汉字表与真实诗句的各种前缀，加上编号打乱的小汉字表，比较两边给出的掩码。"""
import torch

from poetry_gpt.data import EOS, default_tokenizer, load_poems
from poetry_gpt.generate import hanzi_mask


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _real(gen, i, poems, question):
    """真实汉字表（V = 6672）：一首真诗正文的一段前缀。i 轮换：空、句中、句尾前一格、正好到句尾、写完四句；
    诗取自 val，每三个里有一个是 train 里带 ？ 的诗（val 里这样的诗太少）。"""
    tok = default_tokenizer()
    text = (question if i % 3 == 0 else poems)[_int(gen, 0, len(question if i % 3 == 0 else poems))]["text"]
    form = len(text.split("，")[0]) if "，" in text[:8] else text.index(next(c for c in text if c in "，。？！"))
    ids = tok.encode(text)
    kind = i % 5
    if kind == 0:
        n = 0
    elif kind == 4:
        n = len(ids)                                      # 四句都写完了
    else:
        line = _int(gen, 0, 4)
        if i % 3 == 0 and "？" in text[: 3 * (form + 1)]:    # 带 ？ 的诗：停在 ？ 之后的那一句里
            line = text.index("？") // (form + 1) + 1
        start = line * (form + 1)
        n = start + {1: _int(gen, 0, form - 1), 2: form - 1, 3: form}[kind]
    ends = ([tok.stoi["，"], tok.stoi["？"]], [tok.stoi["。"], tok.stoi["？"]])
    return ids[:n], form, hanzi_mask(tok).clone(), ends, EOS


def _toy(gen, i):
    """小汉字表：编号随机分给 <eos>、三个标点和汉字（不能把 3、7、8 之类写死），还有几个既不是汉字也不是标点的编号。"""
    V = _int(gen, 10, 40)
    order = torch.randperm(V, generator=gen).tolist()
    eos, comma, period, question = order[:4]
    hanzi = torch.zeros(V, dtype=torch.bool)
    hanzi[order[4 + _int(gen, 0, 3):]] = True             # 剩下的编号里，前 0–2 个不是汉字（像 <pad>、<unk>）
    chars = hanzi.nonzero().flatten().tolist()
    form = (5, 7)[_int(gen, 0, 2)]
    written = []
    n_lines = i % 5                                       # 写完 0–4 句，再写半句
    for line in range(n_lines):
        written += [chars[_int(gen, 0, len(chars))] for _ in range(form)]
        written.append(question if _int(gen, 0, 3) == 0 else (comma, period)[line % 2])
    if n_lines < 4:
        written += [chars[_int(gen, 0, len(chars))] for _ in range(_int(gen, 0, form + 1))]
    return written, form, hanzi, ([comma, question], [period, question]), eos


def cases(gen):
    """24 个用例：(written, form, hanzi [V] bool, line_ends, eos)。

    前 12 个用真实汉字表与 val、train 里的真诗（五言、七言；每三个里有一个是 train 里带 ？ 的诗），前缀轮换：空、句中、
    句尾前一格、正好写满一句、四句写完；后 12 个是编号打乱的小汉字表，写完 0–4 句再写几个字。
    """
    poems = load_poems("val")
    question = [p for p in load_poems("train") if "？" in p["text"]]
    out = [_real(gen, i, poems, question) for i in range(12)]
    out += [_toy(gen, i) for i in range(12)]
    return out
