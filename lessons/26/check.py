"""第 26 课差分检查：随机的参数预算与尺寸，比较两边选出的 (宽度, 参数个数)。"""

import torch

from poetry_gpt.data import default_tokenizer

# 源码规则（批改程序在运行练习之前用 ast 查名字，删掉底部的可见检查也躲不过；注释与字符串不算；见 grading.rule_problem）。
# FORBIDDEN 按片段、不分大小写："poetrygpt" 拦下 PoetryGPT，"numel" 拦下 .numel()。FORBIDDEN_NAMES 只拦一模一样的名字：
# "nn" 拦下 torch.nn、from torch import nn，却不拦 from __future__ import annotations 这类碰巧含有 nn 的名字。
_WHY = (
    "请不要用 {}：本课要你只用第 14 课的公式，在训练之前算出配置——建一个模型再数它的参数，"
    "是把第 14 课的答案当成这一课的一步，也练不到“哪一项占了大头”"
)
FORBIDDEN = {name: _WHY.format(name) for name in ("poetry_gpt", "poetrygpt", "num_parameters", "numel", "nelement")}
FORBIDDEN_NAMES = {name: _WHY.format(name) for name in ("nn", "meta")}
# 连最窄的宽度都超出预算时，solve 应当 raise ValueError：这样的用例比较“是否 raise 了 ValueError”
RAISES = ("ValueError",)


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _count(V, L, C, n):
    return V * C + L * C + n * (12 * C * C + 13 * C) + 2 * C


def cases(gen):
    """30 个用例：(budget, vocab_size, context_length, n_layers, n_heads)。

    按顺序轮换四种：真实汉字表（V = 6672，L 是 48 或 64）上的随机预算；预算正好等于某个合格宽度的参数个数
    （等于也算在预算之内）；预算比某个合格宽度的参数个数少 1（只能退一档）；很小的汉字表（V < 200，层数占大头）。
    头数有 1–6 和 8、12，不只 2 的幂；层数有 0。前 24 个预算都至少够最窄的宽度 C = n_heads；
    最后 6 个不够（比最窄宽度的参数个数少 1、只有一半、是 0），参考答案在这里 raise ValueError。
    """
    V_real = len(default_tokenizer())
    out = []
    for i in range(24):
        kind = i % 4
        n_heads = [1, 2, 3, 4, 5, 6, 8, 12][_int(gen, 0, 8)]
        n_layers = _int(gen, 0, 9)
        if kind == 3:
            V, L = _int(gen, 8, 200), _int(gen, 4, 65)
        else:
            V, L = V_real, [48, 64][_int(gen, 0, 2)]
        width = n_heads * _int(gen, 1, 400 // n_heads + 1)
        if kind == 1:
            budget = _count(V, L, width, n_layers)
        elif kind == 2:
            width = max(width, 2 * n_heads)
            budget = _count(V, L, width, n_layers) - 1
        else:
            budget = _int(gen, _count(V, L, n_heads, n_layers), _count(V, L, width, n_layers) + 2)
        out.append((budget, V, L, n_layers, n_heads))
    for i in range(6):  # 预算连 C = n_heads 都不够：应当 raise ValueError（差 1 个、差很多、预算是 0）
        n_heads = [1, 2, 4, 3, 8, 6][i]
        n_layers = _int(gen, 0, 9)
        V, L = (V_real, 64) if i % 2 == 0 else (_int(gen, 8, 200), _int(gen, 4, 65))
        narrowest = _count(V, L, n_heads, n_layers)
        budget = [narrowest - 1, narrowest // 2, 0][i % 3]
        out.append((budget, V, L, n_layers, n_heads))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
def _raised(want):
    return getattr(want, "name", None) == "ValueError"  # 批改程序的 wire.Raised 记号：参考答案 raise 了 ValueError


KINDS = {
    "真实汉字表（V = 6672）": lambda case, want: case[1] == len(default_tokenizer()) and not _raised(want),
    "预算正好等于某个合格宽度的参数个数": lambda case, want: not _raised(want) and want[1] == case[0],
    "预算比某个合格宽度的参数个数少 1（退一档）": lambda case, want: (
        not _raised(want) and _count(case[1], case[2], want[0] + case[4], case[3]) == case[0] + 1
    ),
    "很小的汉字表（V < 200）": lambda case, want: case[1] < 200 and not _raised(want),
    "0 层": lambda case, want: case[3] == 0 and not _raised(want),
    "头数不是 2 的幂": lambda case, want: case[4] in (3, 5, 6, 12) and not _raised(want),
    "只够最窄的宽度 C = n_heads": lambda case, want: not _raised(want) and want[0] == case[4],
    "预算比最窄的宽度少 1（raise ValueError）": lambda case, want: (
        _raised(want) and case[0] == _count(case[1], case[2], case[4], case[3]) - 1
    ),
    "预算是 0（raise ValueError）": lambda case, want: _raised(want) and case[0] == 0,
}
