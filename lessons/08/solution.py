"""第 08 课补全练习：用 one-hot 乘法查字向量表。修改 solve，保持下方检查不变。"""

import torch
from torch.nn import functional as F

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(ids, weight):
    """不用下标查表，而是把编号变成 one-hot 向量，再乘整张字向量表。

    Args:
        ids: 字的编号，形状 [B, T]，整数，每个都在 0…V-1 之间。
        weight: 字向量表，形状 [V, C]。

    Returns:
        形状 [B, T, C] 的张量，第 (b, t) 格等于 weight 的第 ids[b, t] 行。
    """
    one_hot = F.one_hot(ids, weight.shape[0]).to(weight.dtype)  # [B, T, V]，每格只有一个 1
    return one_hot @ weight  # [B, T, V] @ [V, C] → [B, T, C]


if __name__ == "__main__":
    w = torch.arange(12.0).view(4, 3)  # V=4 个字，每字 C=3 个数
    ids = torch.tensor([[2, 0, 2], [3, 1, 0]])
    y = solve(ids, w)
    assert y.shape == (2, 3, 3), f"形状应为 (2, 3, 3)，实际是 {tuple(y.shape)}"
    assert torch.equal(y[0, 0], torch.tensor([6.0, 7.0, 8.0])), "编号 2 应取出第 2 行 [6, 7, 8]"
    assert torch.equal(y, w[ids]), "结果应与直接查表 weight[ids] 完全相同"
    w = torch.randn(50, 8)
    ids = torch.randint(0, 50, (5, 7))
    assert torch.allclose(solve(ids, w), w[ids]), "随机的表上，结果也应等于 weight[ids]"
    # 这一课要你亲手写出 one-hot 乘法；按编号取行（下标、库函数、逐行去找）一步做完，练不到本课的东西
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(solve))  # 读语法树：注释不在里面，文档字符串与字符串只是常量，不是名字
    used = [getattr(n, k) for n in ast.walk(tree) for k in ("attr", "id", "name") if isinstance(getattr(n, k, 0), str)]
    why = "本课练的是 one-hot 向量乘整张表；直接查表的写法第 09 课以后模型里天天用，这里要亲手看到两者为什么相等"
    for shortcut in ("embedding", "index_select", "gather", "enumerate"):
        assert not any(shortcut in name.lower() for name in used), f"请不要调用 {shortcut}：{why}"
    multiplied = any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) for n in ast.walk(tree))
    assert multiplied or {"matmul", "mm", "bmm", "einsum"} & set(used), f"请把 one-hot 张量乘整张表（@）：{why}"
    lookups = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Subscript) and "Name(" in ast.dump(n.slice)]
    lookups = [x for x in lookups if x.startswith("weight")]  # weight[ids]、weight.data[ids]；weight.shape[0] 不算
    assert not lookups, f"请不要用下标按编号查表（{lookups[0] if lookups else ''}）：{why}"
    print("本课补全练习通过。")
