"""第 25 课差分检查：val 里的真诗（含 ？ 结尾的句子）、重复的诗、截断的诗与空列表，比较两边的 distinct-n。"""

import math

import torch

from poetry_gpt.data import load_poems

# 源码规则（批改程序在运行练习之前用 ast 查名字，删掉底部的可见检查也躲不过；注释、字符串与自己定义的名字不算；
# 见 grading.rule_problem）
FORBIDDEN = {
    name: f"请不要用 {name}：本课要你自己切句、数 n 字组合，而不是调用课程包里的 distinct_n"
    for name in ("poetry_gpt", "distinct_n", "metrics", "split_lines")
}


def compare(expected, got):
    """distinct-n 是一个比例：必须是 Python 的 float（没有组合时是 0.0，不是整数 0），与参考答案相差不到 1e-9。"""
    if type(got) is not float:
        return (
            f"应返回 Python 的 float（0 到 1 之间的比例；一个组合也没有时返回 0.0，不是整数 0），"
            f"实际是 {type(got).__name__} {got!r}"[:300]
        )
    if not math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12):
        return f"distinct-n 应为 {expected!r}，实际是 {got!r}"
    return None


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _pick(gen, poems, k):
    return [poems[i]["text"] for i in torch.randint(0, len(poems), (k,), generator=gen).tolist()]


def cases(gen):
    """24 个用例：(texts, n)。

    按顺序轮换四种：val 里随机的 1–60 首真诗，n = 2；语料里全部带 ？ 的诗（？ 在句尾，也在句中间的两句之间）
    混进几首别的诗，其中一首的句号换成 ！（语料里一个 ！ 也没有），n 是 2 或 3；几首诗有的重复两三遍、顺序打乱（同一个提示写两遍、模型写出同一首），
    n 是 1、2、3；边角：空列表、写到一半被截断的诗（结尾没有标点的残段不算一句）、一句重复写两遍的诗、
    n = 6（五言的句子没有 6 字组合，七言每句 2 个）、只有五言绝句而 n = 6（诗不是空的，却一个组合也没有：0.0）。
    """
    val = load_poems("val")
    asked = [p for p in load_poems() if "？" in p["text"]]
    five = [p for p in val if p["form"] == "五言绝句"]
    out = []
    for i in range(24):
        kind = i % 4
        if kind == 0:
            out.append((_pick(gen, val, _int(gen, 1, 61)), 2))
        elif kind == 1:
            texts = _pick(gen, asked, _int(gen, 3, 12)) + _pick(gen, val, _int(gen, 0, 6))
            texts[-1] = texts[-1].replace("。", "！")  # 语料里没有 ！：换一首诗的句号，它也是句尾标点
            order = torch.randperm(len(texts), generator=gen).tolist()
            out.append(([texts[j] for j in order], _int(gen, 2, 4)))
        elif kind == 2:
            texts = _pick(gen, val, _int(gen, 2, 12))
            texts += [texts[_int(gen, 0, len(texts))] for _ in range(_int(gen, 1, 4))]
            order = torch.randperm(len(texts), generator=gen).tolist()
            out.append(([texts[j] for j in order], _int(gen, 1, 4)))
        else:
            edge = ("empty", "cut", "twice", "long", "cut", "none")[i // 4]
            if edge == "empty":
                out.append(([], 2))
            elif edge == "cut":
                texts = _pick(gen, val, _int(gen, 2, 8))
                cut = [t[: _int(gen, 1, len(t))] for t in texts]  # 截在随机的一个字后：多半留下一段没有标点的残段
                out.append((texts[:1] + cut, 2))
            elif edge == "twice":
                texts = []
                for t in _pick(gen, val, _int(gen, 2, 8)):
                    texts.append(t[: t.index("，") + 1] + t)  # 第一句写了两遍：五句，组合重复
                out.append((texts, 2))
            elif edge == "long":
                out.append((_pick(gen, val, _int(gen, 2, 8)), 6))  # 只有七言的句子有 6 字组合（每句 2 个）
            else:  # 只有五言：诗不是空的，一个 6 字组合也没有
                out.append((_pick(gen, five, _int(gen, 2, 8)), 6))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    **{f"句尾 {mark}": lambda case, want, mark=mark: any(mark in t for t in case[0]) for mark in "，。？！"},
    "？ 在两句之间（不只在诗尾）": lambda case, want: any("？" in t[:-1] for t in case[0]),
    "空列表（0.0）": lambda case, want: case[0] == [],
    "写到一半被截断（结尾没有标点的残段）": lambda case, want: any(t and t[-1] not in "，。？！" for t in case[0]),
    "同一首诗出现几次": lambda case, want: len(set(case[0])) < len(case[0]),
    "一句写了两遍（五句）": lambda case, want: any(sum(t.count(m) for m in "，。？！") == 5 for t in case[0]),
    "n = 1": lambda case, want: case[1] == 1,
    "n = 6（五言的句子没有组合）": lambda case, want: case[1] == 6,
    "有诗、却一个组合也没有（0.0）": lambda case, want: case[0] != [] and want == 0.0,
}
