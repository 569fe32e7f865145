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


_PRODUCTS = {"matmul", "mm", "bmm", "einsum", "tensordot"}  # 与 @ 一样的矩阵乘法


def _called(func):
    """调用的函数名：F.one_hot(...) 的 one_hot，matmul(...) 的 matmul。"""
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _not_started(code):
    """solve 的函数体（文档字符串之后）只有起始文件里那一句 raise：还没开始写，交给运行去判“未完成”。"""
    solve = next((n for n in code.body if isinstance(n, ast.FunctionDef) and n.name == "solve"), None)
    body = solve.body[1:] if solve and isinstance(solve.body[0], ast.Expr) else solve.body if solve else []
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.dump(body[0])


def source_problem(code):
    """练习要的那一步是 one-hot 乘整张表：代码里没有矩阵乘法（@、matmul、einsum……）的，结果再对也是
    换了个办法查表（逐行去找的 next(... enumerate(weight) ...)）。
    用变量做下标就是按编号查表：weight[ids]、换了名字的 table[ids]、weight.data[ids]、循环里的 weight[i]
    都拦下。下标里只有常数的不算（weight.shape[0]、ids[..., None]、x[:, -1]）。
    类型注解（list[int]、dict[str, int]）不取数，不算。code 是学习者代码的 ast.Module（不含底部的可见检查，见 grading.rules.learner_code）。"""
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
    products = [n for n in ast.walk(code) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult)]
    products += [n for n in ast.walk(code) if isinstance(n, ast.Call) and _called(n.func) in _PRODUCTS]
    if not products and not _not_started(code):
        return f"代码里没有矩阵乘法：请把 one-hot 张量转成浮点，乘整张表（one_hot @ weight）。{_WHY}"
    return None


def cases(gen):
    """20 个用例：(ids [B,T] long, weight [V,C] float)，B、T、V、C 随机；V 有时远大于用到的编号。"""
    out = []
    for i in range(20):
        B, T, V, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9, 60, 17))
        used = int(torch.randint(1, V + 1, (1,), generator=gen))  # 只用前 used 个编号
        ids = torch.randint(0, used, (B, T), generator=gen)
        if i % 4 == 0:  # 最后一个编号 V - 1 也用上：one-hot 的长度是 V，不是 ids.max() + 1
            ids[-1, -1] = V - 1
        out.append((ids, torch.randn(V, C, generator=gen)))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "用到最后一个编号 V - 1": lambda case, want: int(case[0].max()) == case[1].shape[0] - 1,
    "V 远大于用到的编号（表里有些行没被查到）": lambda case, want: int(case[0].max()) < case[1].shape[0] - 1,
    "用到编号 0": lambda case, want: bool((case[0] == 0).any()),
    "同一个编号出现好几次": lambda case, want: case[0].unique().numel() < case[0].numel(),
}
