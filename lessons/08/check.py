"""第 08 课差分检查：随机的编号与字向量表，比较学习者与参考答案的 solve。"""
import ast

import torch

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
_WHY = "本课练的是 one-hot 向量乘整张表；直接查表的写法第 09 课以后模型里天天用，这里要亲手看到两者为什么相等"
FORBIDDEN = {name: f"请不要调用 {name}：{_WHY}" for name in ("embedding", "index_select")}


def source_problem(code):
    """直接按编号查表 weight[ids] 也是捷径。code 是学习者代码的 ast.Module（不含原样保留的可见检查）。"""
    for node in ast.walk(code):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "weight":
            return f"第 {node.lineno} 行用了 weight[…]。请不要直接查表：{_WHY}"
    return None


def cases(gen):
    """20 个用例：(ids [B,T] long, weight [V,C] float)，B、T、V、C 随机；V 有时远大于用到的编号。"""
    out = []
    for _ in range(20):
        B, T, V, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (5, 9, 60, 17))
        used = int(torch.randint(1, V + 1, (1,), generator=gen))  # 只用前 used 个编号
        ids = torch.randint(0, used, (B, T), generator=gen)
        out.append((ids, torch.randn(V, C, generator=gen)))
    return out
