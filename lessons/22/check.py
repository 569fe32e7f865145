"""第 22 课差分检查：真实汉字表与真实诗句的各种前缀，加上编号打乱的小汉字表，比较两边给出的掩码。"""

import torch

from poetry_gpt.constraints import hanzi_mask
from poetry_gpt.data import EOS, default_tokenizer, load_poems

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {
    "poetry_gpt": "本课要自己数出写到了第几句、第几格：不要调用课程包 poetry_gpt 里现成的 hanzi_mask、Constraint"
}
# 结果要是新张量：返回 hanzi 本身（或它的视图），解码器以后在结果上划掉字时会连汉字表一起改掉
FRESH_RESULT = True


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
        n = len(ids)  # 四句都写完了
    else:
        line = _int(gen, 0, 4)
        if i % 3 == 0 and "？" in text[: 3 * (form + 1)]:  # 带 ？ 的诗：停在 ？ 之后的那一句里
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
    hanzi[order[4 + _int(gen, 0, 3) :]] = True  # 剩下的编号里，前 0–2 个不是汉字（像 <pad>、<unk>）
    chars = hanzi.nonzero().flatten().tolist()
    form = (5, 7)[_int(gen, 0, 2)]
    written = []
    n_lines = i % 5  # 写完 0–4 句，再写半句
    for line in range(n_lines):
        written += [chars[_int(gen, 0, len(chars))] for _ in range(form)]
        written.append(question if _int(gen, 0, 3) == 0 else (comma, period)[line % 2])
    if n_lines < 4:
        written += [chars[_int(gen, 0, len(chars))] for _ in range(_int(gen, 0, form + 1))]
    return written, form, hanzi, ([comma, question], [period, question]), eos


def _line_end(gen, line, form):
    """小汉字表上正好写满第 line 句（从 0 数）的前缀：下一格是这一句的句尾，四句各有一个（不只第一句和最后一句）。"""
    written, form_, hanzi, ends, eos = _toy(gen, 0)
    chars = hanzi.nonzero().flatten().tolist()
    written = []
    for done in range(line):
        written += [chars[_int(gen, 0, len(chars))] for _ in range(form)]
        written.append(ends[done % 2][_int(gen, 0, 2)])
    written += [chars[_int(gen, 0, len(chars))] for _ in range(form)]
    return written, form, hanzi, ends, eos


def _names(ids, V):
    """编号写成“5（，）”：真实汉字表上带上字，小汉字表只写编号。最多列 6 个。"""
    tok = default_tokenizer()
    shown = [f"{i}（{tok.tokens[i]}）" if V == len(tok) else str(i) for i in ids[:6]]
    return "、".join(shown) + ("……" if len(ids) > 6 else "")


def compare(expected, got):
    """掩码要一模一样：不同时说出哪些编号该允许却没允许、哪些不该允许却允许了（真实汉字表上带上字）。"""
    if not isinstance(got, torch.Tensor):
        return f"应返回 [V] 的 bool 张量，实际是 {type(got).__name__}"
    if got.dtype != torch.bool or tuple(got.shape) != tuple(expected.shape):
        return f"应返回 {list(expected.shape)} 的 bool 张量，实际是 {got.dtype} {list(got.shape)}"
    if torch.equal(got, expected):
        return None
    missing = (expected & ~got).nonzero().flatten().tolist()
    extra = (got & ~expected).nonzero().flatten().tolist()
    parts = []
    if missing:
        parts.append(f"该允许却没允许 {len(missing)} 个编号：{_names(missing, len(expected))}")
    if extra:
        parts.append(f"不该允许却允许了 {len(extra)} 个编号：{_names(extra, len(expected))}")
    return "；".join(parts)


def cases(gen):
    """32 个用例：(written, form, hanzi [V] bool, line_ends, eos)。

    前 12 个用真实汉字表与 val、train 里的真诗（五言、七言；每三个里有一个是 train 里带 ？ 的诗），前缀轮换：空、句中、
    句尾前一格、正好写满一句、四句写完；再 12 个是编号打乱的小汉字表，写完 0–4 句再写几个字；
    最后 8 个正好写满第 0、1、2、3 句（五言、七言各一遍）：每一句的句尾标点都查到。
    """
    poems = load_poems("val")
    question = [p for p in load_poems("train") if "？" in p["text"]]
    out = [_real(gen, i, poems, question) for i in range(12)]
    out += [_toy(gen, i) for i in range(12)]
    out += [_line_end(gen, line, form) for form in (5, 7) for line in range(4)]
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _line(case):
    """已经写完了几句（数句尾标点）。"""
    written, _, _, line_ends, _ = case
    return sum(1 for t in written if t in set(line_ends[0]) | set(line_ends[1]))


def _at_line_end(case, want):
    return not torch.equal(want, case[2]) and not bool(want[case[4]])


KINDS = {
    "空前缀（第一格）": lambda case, want: case[0] == [],
    "句中（hanzi 的副本）": lambda case, want: case[0] != [] and torch.equal(want, case[2]),
    **{
        f"写满第 {n} 句：句尾标点（{'，？' if n % 2 == 0 else '。？'}）": lambda case, want, n=n: (
            _line(case) == n and _at_line_end(case, want)
        )
        for n in range(4)
    },
    "四句写完（只有 <eos>）": lambda case, want: bool(want[case[4]]),
    "前缀里有 ？（数句尾标点，不看是哪一个）": lambda case, want: any(
        t in case[3][0] and t in case[3][1] for t in case[0]
    ),
    "五言": lambda case, want: case[1] == 5,
    "七言": lambda case, want: case[1] == 7,
    "真实汉字表": lambda case, want: len(case[2]) > 1000,
    "编号打乱的小汉字表": lambda case, want: len(case[2]) < 100,
}
