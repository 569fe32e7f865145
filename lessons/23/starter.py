"""第 23 课补全练习：藏头字与必含字的强制日程。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(form, acrostic, required, wanted):
    """按受约束解码的规则（Constraint，rules=PLAIN），写出一首诗正文里的 4 × form 个字（不含标点）。

    逐格写，句、格都从 0 数：
    1. 有藏头字时，每句第 0 格只能是 acrostic[句]。
    2. 否则，若“还差的字”不为空，且包括这一格在内还剩的自由格子数 ≤ 还差的字数：这一格被强制，
       写还差的字里排在最前的那个。自由格子 = 还没写的格子里不是藏头格的那些。
    3. 否则写 wanted 里给这一格的字（采样本来会选的字）。
    每写出一个字，它若在还差的字里，就从中划掉。
    还差的字 = required 去重、保持先后，再去掉藏头字（藏头字一定会写出）。

    Args:
        form: 每句的字数，5 或 7。
        acrostic: 4 个藏头字的编号（list[int]），或空列表。
        required: 必须写进诗里的字的编号（list[int]，可能有重复，可能与藏头字重叠）。
        wanted: 长 4 × form 的编号列表：第 k 格不被强制时写的字。

    Returns:
        list[int]：长 4 × form，按顺序是实际写出的字。输入都不改动。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 23 检查；卡住时运行 ./poet hint 23 看提示。")


if __name__ == "__main__":
    # 小例子：五言，字的编号就用整数。wanted 全是 0（采样本来每格都写 0）
    w = [0] * 20
    kept = list(w)
    assert solve(5, [], [], w) == w, "没有藏头、没有必含字时，每格都写 wanted 的字"
    got = solve(5, [], [7], w)
    assert got == [0] * 19 + [7], f"必含字 7 一直没写：最后一格（第 19 格）被强制写 7，实际是 {got}"
    got = solve(5, [], [7, 8], w)
    assert got[-2:] == [7, 8] and got[:18] == [0] * 18, f"还差两个字：最后两格依次强制写 7、8，实际是 {got[-3:]}"
    got = solve(5, [1, 2, 3, 4], [], w)
    assert got[::5] == [1, 2, 3, 4] and got.count(0) == 16, f"藏头字在每句第 0 格（第 0、5、10、15 格），实际是 {got}"
    got = solve(5, [1, 2, 3, 4], [2, 9], w)
    assert got[-1] == 9 and got.count(2) == 1, (
        f"必含字 2 也是藏头字：不算还差的字，只有 9 被强制到最后一格，实际是 {got}"
    )
    got = solve(5, [1, 2, 3, 4], [8, 9], w)
    assert got == [1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4, 0, 0, 8, 9], (
        f"还差 8、9，最后一句的第 0 格是藏头字：只有第 18、19 格是自由格子，依次强制 8、9，实际是 {got}"
    )
    many = list(range(10, 28))  # 18 个必含字，自由格子只有 16 个
    got = solve(5, [1, 2, 3, 4], many, w)
    assert [t for i, t in enumerate(got) if i % 5] == many[:16], (
        f"必含字比自由格子还多：从第一个自由格子起每格都被强制，依次写前 16 个，剩下 2 个没有格子可放，实际是 {got}"
    )
    got = solve(5, [1, 2, 3, 4], [4] + list(range(10, 25)), w)  # 15 个还差的字 + 最后一句的藏头字 4
    assert got[1] == 0 and got[2:5] == [10, 11, 12], (
        f"藏头字 4 不算还差的字：还差 15 个、自由格子 16 个，第 1 格还能自由写，从第 2 格起才强制，实际是 {got[:5]}"
    )
    w2 = [0] * 3 + [9] + [0] * 16
    assert solve(5, [], [9], w2) == w2, "必含字在第 3 格自己出现了：之后就不再强制"
    assert w == kept, "solve 不应改动传进来的 wanted"
    print("本课补全练习通过。")
