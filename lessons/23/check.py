"""第 23 课差分检查：真诗做“本来会写的字”，真实的藏头字与必含字，加上必含字比自由格子还多的小例子。"""

import torch

from poetry_gpt.data import default_tokenizer, keywords_for, load_poems, split_lines

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {"poetry_gpt": "本课要自己排出强制字的日程：不要调用课程包 poetry_gpt 里现成的 Constraint、Rules"}


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def cases(gen):
    """24 个用例：(form, acrostic, required, wanted)，编号来自真实汉字表（前 18 个）或小整数（后 6 个）。

    轮换：没有藏头、必含字是另一首诗的关键词（多半要被强制到最后几格）；藏头字取自另一首诗每句的第一个字，
    必含字里混进一个藏头字和一个重复的字；必含字就在 wanted 这首诗里（自己写出来，不必强制）；
    后 6 个小例子里，去重、去掉藏头字后的还差的字比自由格子多 1–3 个（后面的字没有格子可放），
    有藏头时必含字里还混进一个藏头字和一个重复的字。
    """
    tok = default_tokenizer()
    poems = load_poems("val")
    out = []
    for i in range(18):
        poem = poems[_int(gen, 0, len(poems))]
        lines = split_lines(poem["text"])
        form = len(lines[0])
        wanted = tok.encode("".join(lines))
        other = poems[_int(gen, 0, len(poems))]
        kind = i % 3
        acrostic, required = [], tok.encode("".join(keywords_for(other)))
        if kind == 1:
            acrostic = tok.encode("".join(line[0] for line in split_lines(other["text"])))
            required = required + [acrostic[_int(gen, 0, 4)]] + required[:1]
        elif kind == 2:
            picks = [wanted[_int(gen, 0, len(wanted))] for _ in range(_int(gen, 1, 4))]
            required = picks + required[:1]
            if _int(gen, 0, 2):
                acrostic = tok.encode("".join(line[0] for line in lines))
        out.append((form, acrostic, required, wanted))
    for i in range(6):
        form = (5, 7)[i % 2]
        wanted = torch.randint(0, 6, (4 * form,), generator=gen).tolist()
        acrostic = [] if i % 3 == 0 else torch.randint(40, 50, (4,), generator=gen).tolist()
        free = 4 * form - len(acrostic)
        pool = [t for t in (torch.randperm(47, generator=gen) + 3).tolist() if t not in acrostic]
        required = pool[: free + _int(gen, 1, 4)]  # 互不相同、都不是藏头字：比自由格子多 1–3 个
        if acrostic:  # 再混进一个藏头字和一个重复的字：还差的字不因它们变多
            required.insert(_int(gen, 0, len(required) + 1), acrostic[_int(gen, 0, 4)])
            required.insert(_int(gen, 0, len(required) + 1), required[_int(gen, 0, len(required))])
        out.append((form, acrostic, required, wanted))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _missing(case):
    """还差的字：required 去重、保持先后，再去掉藏头字。"""
    form, acrostic, required, _ = case
    return [t for t in dict.fromkeys(required) if t not in acrostic]


KINDS = {
    "没有藏头": lambda case, want: case[1] == [],
    "有藏头": lambda case, want: case[1] != [],
    "必含字里混进藏头字": lambda case, want: any(t in case[1] for t in case[2]),
    "必含字有重复": lambda case, want: len(set(case[2])) < len(case[2]),
    "必含字就在 wanted 里（自己写出来，不必强制）": lambda case, want: any(t in case[3] for t in _missing(case)),
    "必含字要强制到最后几格": lambda case, want: want[-1] != case[3][-1],
    "还差的字比自由格子多（写满为止）": lambda case, want: len(_missing(case)) > 4 * case[0] - (4 if case[1] else 0),
    "有藏头、还差的字比自由格子多（藏头格照样写藏头字：藏头先于强制）": lambda case, want: (
        case[1] != [] and len(_missing(case)) > 4 * case[0] - 4
    ),
    "五言": lambda case, want: case[0] == 5,
    "七言": lambda case, want: case[0] == 7,
}
