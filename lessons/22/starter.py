"""第 22 课补全练习：这一格允许哪些编号。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(written, form, hanzi, line_ends, eos):
    """受约束解码的格式掩码：正文已经写了 written，下一格允许哪些编号（与 Constraint.allowed 的格式部分相同）。

    一首绝句的正文是四句，每句 form 个汉字加一个句尾标点，写完四句只能是 <eos>。
    句尾标点：第一、三句用 line_ends[0] 里的（，？），第二、四句用 line_ends[1] 里的（。？）。
    ？ 两边都有，所以“写完了几句”要数句尾标点的个数，不能看是哪一个标点。

    Args:
        written: 到目前为止写出的正文编号（list[int]），一定合乎格式：汉字与句尾标点，不含条件区。
        form: 每句的字数，5 或 7。
        hanzi: [V] bool，哪些编号是汉字（句中允许的字）。不要改动它。
        line_ends: (第一、三句句尾允许的编号列表, 第二、四句句尾允许的编号列表)。
        eos: <eos> 的编号。

    Returns:
        新的 [V] bool 张量：句中是 hanzi 的副本；到了句尾只有这一句允许的标点；写满四句只有 eos。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 22 检查；卡住时运行 ./poet hint 22 看提示。")


if __name__ == "__main__":
    # 一张 10 个编号的小汉字表：0 是 <eos>；1 是“，”；2 是“。”；3 是“？”；4–9 是汉字
    hanzi = torch.tensor([False, False, False, False, True, True, True, True, True, True])
    kept = hanzi.clone()
    ends = ([1, 3], [2, 3])
    allowed = lambda written: solve(written, 5, hanzi, ends, 0).nonzero().flatten().tolist()  # noqa: E731
    got = solve([], 5, hanzi, ends, 0)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.bool and got.shape == (10,), (
        f"应返回 [V] 的 bool 张量，实际是 {getattr(got, 'dtype', type(got).__name__)} {list(getattr(got, 'shape', []))}"
    )
    assert allowed([]) == [4, 5, 6, 7, 8, 9], "第一个字只能是汉字：不能是标点，也不能是 <eos>"
    assert allowed([4, 5, 6, 7]) == [4, 5, 6, 7, 8, 9], "五言第一句写了 4 个字，第 5 个字还是汉字"
    assert allowed([4, 5, 6, 7, 8]) == [1, 3], "五言第一句写满 5 个字，下一格只能是第一句的句尾 ，或 ？"
    assert allowed([4, 5, 6, 7, 8, 1, 9, 9, 9, 9, 9]) == [2, 3], "第二句写满，句尾只能是 。或 ？"
    assert allowed([4, 5, 6, 7, 8, 3, 9, 9, 9, 9, 9]) == [2, 3], (
        "第一句以 ？ 结尾也算写完一句：数句尾标点的个数，不看是哪一个"
    )
    poem = [4, 5, 6, 7, 8, 1, 9, 9, 9, 9, 9, 2, 4, 4, 4, 4, 4, 3, 5, 5, 5, 5, 5]
    assert allowed(poem) == [2, 3], "第四句写满，句尾只能是 。或 ？"
    assert allowed(poem + [2]) == [0], "写完四句只剩 <eos>"
    assert solve([4] * 7, 7, hanzi, ends, 0).nonzero().flatten().tolist() == [1, 3], "七言：写满 7 个字才到句尾"
    assert torch.equal(hanzi, kept), "solve 不应改动传进来的 hanzi：返回一个新张量"
    print("本课补全练习通过。")
