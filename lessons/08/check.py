"""第 08 课差分检查：随机的编号与字向量表，比较学习者与参考答案的 solve。"""

import ast

import torch

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
_WHY = "本课练的是 one-hot 向量乘整张表；直接查表的写法第 09 课以后模型里天天用，这里要亲手看到两者为什么相等"
# 按编号取行的库函数；operator.itemgetter、__getitem__ 是换个名字的下标；enumerate 是逐行去找那一行
# （next(row for i, row in enumerate(weight) if i == k)）；类型注解里的下标不查（见 source_problem），
# 所以也不许把注解当值取出来
FORBIDDEN = {
    name: f"请不要调用 {name}：{_WHY}"
    for name in (
        "embedding",
        "index_select",
        "select",
        "gather",
        "take",
        "narrow",
        "getitem",
        "itemgetter",
        "__annotations__",
        "get_annotations",
        "enumerate",
    )
}


def source_problem(code):
    """用变量做下标就是按编号查表：weight[ids]、换了名字的 table[ids]、weight.data[ids]、循环里的 weight[i]
    都拦下。下标里只有常数的不算（weight.shape[0]、ids[..., None]、x[:, -1]）。
    类型注解（list[int]、dict[str, int]）不取数，不算。code 是学习者代码的 ast.Module（不含底部的可见检查，见 grading.shortcuts.learner_code）。
    “真的乘了整张表”不看代码里有没有 @，看结果（见 cases 与 compare：表里没被查到的一行有 inf）。"""
    hints = [
        getattr(node, field)
        for node in ast.walk(code)
        for field in ("annotation", "returns")
        if isinstance(getattr(node, field, None), ast.AST)
    ]
    in_hints = {id(n) for hint in hints for n in ast.walk(hint)}
    for node in ast.walk(code):
        if (
            isinstance(node, ast.Subscript)
            and id(node) not in in_hints
            and any(isinstance(n, ast.Name) for n in ast.walk(node.slice))
        ):
            shown = ast.unparse(node)
            shown = shown if len(shown) <= 40 else shown[:39] + "…"
            return (
                f"第 {node.lineno} 行用变量做了下标：{shown}。请不要按编号查表，"
                f"用 F.one_hot(ids, V) 做出 one-hot 再乘整张表：{_WHY}"
            )
    return None


def cases(gen):
    """20 个用例：(ids [B,T] long, weight [V,C] float)，B、T、V、C 随机；V 有时远大于用到的编号。
    每 4 个里有 1 个，表里一行没被查到的数换成 ±inf：one-hot 乘整张表时这一列每一格都有 0 × inf = nan，
    按编号取行的写法（下标、dict.get、再乘一个无关的 @）这一列是有限的数——看的是做了什么，不是写没写 @。"""
    out = []
    for i in range(20):
        B, T, V, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9, 60, 17))
        used = int(torch.randint(1, V + 1, (1,), generator=gen))  # 只用前 used 个编号
        ids = torch.randint(0, used, (B, T), generator=gen)
        if i % 4 == 0:  # 最后一个编号 V - 1 也用上：one-hot 的长度是 V，不是 ids.max() + 1
            ids[-1, -1] = V - 1
        weight = torch.randn(V, C, generator=gen)
        if i % 4 == 2:  # 没被查到的一行放进 ±inf（V 至少比用到的多一行）
            weight = torch.randn(V + 1, C, generator=gen)
            row = int(torch.randint(int(ids.max()) + 1, V + 1, (1,), generator=gen))
            weight[row, int(torch.randint(0, C, (1,), generator=gen))] = float("inf") if i % 8 == 2 else -float("inf")
        out.append((ids, weight))
    return out


def compare(expected, got):
    """形状、dtype 一样，数值 allclose（rtol=1e-4, atol=1e-5），nan 的位置一模一样：表里没被查到的一行有 inf 时，
    one-hot 乘整张表得到的这一列全是 nan（0 × inf），按编号取行得到的是有限的数。"""
    if not isinstance(got, torch.Tensor):
        return f"结果应是张量，实际是 {type(got).__name__}"
    if tuple(got.shape) != tuple(expected.shape):
        return f"结果的形状应为 {list(expected.shape)}，实际是 {list(got.shape)}"
    if got.dtype != expected.dtype:
        return f"结果的 dtype 应为 {expected.dtype}，实际是 {got.dtype}"
    if not torch.equal(got.isnan(), expected.isnan()):
        return (
            "表里没被查到的一行有 inf：one-hot 乘整张表时，0 × inf = nan，结果里这一列每一格都是 nan；"
            f"你的结果有 {int((got.isnan() != expected.isnan()).sum())} 格与此不同——结果不是 one-hot 乘整张表得来的"
            f"（按编号取了行？）。{_WHY}"
        )
    if torch.allclose(got, expected, rtol=1e-4, atol=1e-5, equal_nan=True):
        return None
    gap = (got - expected).abs().nan_to_num(0.0)
    where = [int(i) for i in torch.unravel_index(gap.argmax(), gap.shape)]
    return (
        f"结果的数值不对：最大相差 {gap.max().item():.4g}，在 {where}（下标从 0 数）："
        f"应为 {expected[tuple(where)].item():.4g}、实际是 {got[tuple(where)].item():.4g}"
    )


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "用到最后一个编号 V - 1": lambda case, want: int(case[0].max()) == case[1].shape[0] - 1,
    "V 远大于用到的编号（表里有些行没被查到）": lambda case, want: int(case[0].max()) < case[1].shape[0] - 1,
    "用到编号 0": lambda case, want: bool((case[0] == 0).any()),
    "同一个编号出现好几次": lambda case, want: case[0].unique().numel() < case[0].numel(),
    "表里没被查到的一行有 inf（乘整张表得到 nan）": lambda case, want: bool(want.isnan().any()),
}
