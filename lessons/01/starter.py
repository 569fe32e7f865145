"""第 01 课补全练习：最后一步，从 logits 到最可能的下一个字。修改 solve，保持下方检查不变。"""

import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(logits, chars, k):
    """把最后一个位置的分数 logits 变成概率，列出最可能的 k 个下一个字。

    Args:
        logits: 形状 [V] 的 float32 张量，logits[i] 是编号 i 的字的分数。分数可能很大或很小（几千、负几千），
            也可能是 -inf（被挡掉的字）；没有 NaN 和 +inf，至少有一个有限的数。不要改动它。
        chars: 长 V 的列表，chars[i] 是编号 i 的字（或特殊标记，如 "<eos>"）。
        k: 要几个候选，正整数。

    Returns:
        列表 [(字, 概率), …]，规则是：
        - 概率是 softmax：每个分数先减去 V 个分数里最大的那个，再取 e 的次方，再除以 V 个结果的总和。
          减去最大值不改变概率（第 01 课小练习 2），却让 e 的次方不会溢出成 inf；-inf 的字概率是 0。
          概率在全部 V 个字上算，是 Python 的 float（不是张量）。
        - 候选是分数有限（不是 -inf）的字，按概率从大到小排；概率相同时编号小的在前。
        - 返回前 k 个候选；候选不到 k 个时，返回全部候选（这时列表短于 k）。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 1 检查；卡住时运行 ./poet hint 1 看提示。")


if __name__ == "__main__":
    chars = ["春", "风", "月", "花", "<eos>"]
    logits = torch.tensor([0.0, math.log(2.0), 0.0, float("-inf"), math.log(4.0)])  # e 的次方：1、2、1、0、4
    got = solve(logits, chars, 2)
    assert [ch for ch, _ in got] == ["<eos>", "风"], f"应按概率从大到小取前 2 个：{got}"
    assert all(type(p) is float for _, p in got), (
        f"概率要是 Python 的 float（用 .item() 或 .tolist()），不是张量：{got}"
    )
    assert math.isclose(got[0][1], 0.5, rel_tol=1e-5) and math.isclose(got[1][1], 0.25, rel_tol=1e-5), (
        f"概率是 e 的次方除以 V 个字的总和（4 / 8 与 2 / 8），在全部字上算，不是只在前 k 个里：{got}"
    )
    got = solve(logits, chars, 3)
    assert [ch for ch, _ in got] == ["<eos>", "风", "春"], (
        f"“春”（编号 0）和“月”（编号 2）概率相同，编号小的在前：{got}"
    )
    got = solve(logits, chars, 10)
    assert [ch for ch, _ in got] == ["<eos>", "风", "春", "月"], (
        f"分数是 -inf 的“花”不是候选；候选不到 k 个时全部列出：{got}"
    )
    assert torch.equal(logits, torch.tensor([0.0, math.log(2.0), 0.0, float("-inf"), math.log(4.0)])), "不要改动 logits"
    got = solve(logits + 10000.0, chars, 1)
    assert len(got) == 1 and got[0][0] == "<eos>" and math.isclose(got[0][1], 0.5, rel_tol=1e-3), (
        f"每个分数都加 10000，概率不变；e 的 10000 次方会溢出成 inf，先减去最大值：{got}"
    )
    got = solve(torch.tensor([-5000.0, -5001.0]), ["山", "水"], 2)
    assert not any(math.isnan(p) for _, p in got), f"分数都很小时 e 的次方全是 0，0 / 0 得 nan；先减去最大值：{got}"
    # 这一课要亲手算一遍 softmax；torch.softmax 一步做完，就看不到“减去最大值”这一步了
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(solve))  # 读语法树：注释不在里面，文档字符串与字符串只是常量，不是名字
    used = [getattr(n, k) for n in ast.walk(tree) for k in ("attr", "id", "name") if isinstance(getattr(n, k, 0), str)]
    assert not any("softmax" in name.lower() for name in used), (
        "请不要调用 softmax 函数：本课要亲手写出减去最大值、取 e 的次方、除以总和这三步；第 10 课以后再用 torch.softmax"
    )
    print("本课补全练习通过。")
