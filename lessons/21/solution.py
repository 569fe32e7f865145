"""第 21 课补全练习：温度与 top-k / top-p 截断。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(logits, temperature, top_k, top_p):
    """把一行 logits 变成采样前的样子：先除以温度，再 top-k，再在剩下的字里 top-p。

    Args:
        logits: [V] 浮点张量，下一个字的分数；可能已有 -inf（不允许的字）。不要修改它。
        temperature: 大于 0 的数。（温度为 0 是贪心解码，不经过这里。）
        top_k: None 或 0 表示不截；否则只留分数最高的 k 个——与第 k 大的分数相等的字也都留下，
            所以可能多于 k 个；k 大于 V 时全留。
        top_p: None 或 ≥ 1 表示不截；否则 0 < top_p < 1。在 top-k 剩下的字里重新做 softmax，
            按分数从高到低排（分数相等时编号小的排前面），排在一个字前面的概率之和已经 ≥ top_p 时丢掉它。
            所以排第一的字总会留下。

    Returns:
        形状、dtype 与 logits 相同的新张量：留下的位置是 logits / temperature，丢掉的是 -inf。
    """
    out = logits / temperature  # 1. 温度：新张量，不动输入
    if top_k:  # 2. top-k：None 和 0 都不截
        kth = torch.topk(out, min(top_k, out.shape[-1])).values[-1]
        out = out.masked_fill(out < kth, float("-inf"))  # 与第 k 大相等的并列字留下
    if top_p is not None and top_p < 1:  # 3. top-p：在剩下的字里
        order = torch.sort(out, descending=True, stable=True).indices  # 并列时编号小的在前
        probs = torch.softmax(out[order], dim=-1)
        before = torch.cumsum(probs, dim=-1) - probs  # 排在它前面的概率之和
        out = out.clone()
        out[order[before >= top_p]] = float("-inf")
    return out


if __name__ == "__main__":
    logits = torch.tensor([1.0, 3.0, 2.0, 2.0, 0.0])
    kept = lambda t: torch.isfinite(t).tolist()  # noqa: E731
    before = logits.clone()
    out = solve(logits, 1.0, 2, None)
    assert torch.equal(logits, before), "不要修改输入的 logits"
    assert out.shape == logits.shape and out.dtype == logits.dtype, "形状和 dtype 要与 logits 相同"
    assert kept(out) == [False, True, True, True, False], "top-k = 2：第 2 大的分数是 2，两个 2 分的字都要留下"
    assert torch.equal(solve(logits, 2.0, None, None), logits / 2), "不截断时只除以温度"
    assert kept(solve(logits, 1.0, 0, 1.0)) == [True] * 5, "top_k = 0、top_p = 1 都表示不截"
    flat = torch.zeros(4)  # 四个字各 1/4
    assert kept(solve(flat, 1.0, None, 0.5)) == [True, True, False, False], (
        "排在第 3 个字前面的概率正好是 0.5 ≥ p：丢掉；并列时编号小的排前面"
    )
    assert kept(solve(flat, 1.0, None, 0.01)) == [True, False, False, False], "排第一的字总会留下"
    assert kept(solve(torch.tensor([0.0, 0.0, -60.0]), 1.0, 1, 0.5)) == [True, False, False], (
        "先 top-k（留下两个并列的 0 分），再在剩下的两个里 top-p"
    )
    print("本课补全练习通过。")
