"""第 25 课补全练习：一组诗的 distinct-n。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(texts, n):
    """一组诗的 distinct-n：所有诗里不同的 n 字组合有几种，除以 n 字组合的总数（./poet eval 的 distinct-2 是 n = 2）。

    1. 切句：一句是一段不含 ，。？！ 的字，后面紧跟这四种标点之一；句尾标点不算进句子。
       结尾没有标点的一段（比如生成时写到前文长度被截断）不算一句。
    2. n 字组合：每一句里相邻的 n 个字 line[i:i+n]，i = 0, 1, …, len(line) - n。不跨过标点，不跨诗；
       比 n 短的句子没有组合。
    3. 把所有诗的组合放在一起：总数里重复的每次都算；“不同的几种”在整组诗里去重，不是每首诗各自去重。
    4. 返回 不同的种数 ÷ 总数（float，0 到 1）。一个组合也没有时（texts 是空列表，或者每一句都比 n 短）返回 0.0。

    Args:
        texts: list[str]，带标点的诗；可能是空列表，同一首诗可能出现几次。不要改动它。
        n: 组合的字数，n ≥ 1。

    Returns:
        float。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 25 检查；卡住时运行 ./poet hint 25 看提示。")


if __name__ == "__main__":
    jingye = "床前看月光，疑是地上霜。举头望山月，低头思故乡。"
    poems = [jingye]
    got = solve(poems, 2)
    assert type(got) is float, f"应返回 Python 的 float（比如 1.0、0.0），实际是 {type(got).__name__}"
    assert got == 1.0, f"《静夜思》四句各 4 个两字组合，16 个互不相同：distinct-2 应为 1.0，实际是 {got}"
    assert solve([jingye, jingye], 2) == 0.5, "同一首诗放两遍：总数 32，不同的仍是 16 种，应为 0.5——去重要在整组诗里做"
    empty = solve([], 2)
    assert empty == 0.0 and type(empty) is float, (
        f"空列表没有任何组合，应返回 float 0.0（不是整数 0），实际是 {empty!r}"
    )
    assert abs(solve([jingye], 1) - 18 / 20) < 1e-9, (
        "n = 1 就是不同的字：20 个字里月、头各用两次，不同的 18 种，应为 0.9"
    )
    assert solve(["花花，花花。"], 2) == 0.5, "两字组合不跨过标点：“花花，花花。”只有两个组合（都是“花花”），应为 0.5"
    assert solve(["山山？山山。"], 2) == 0.5, "？ 也是句尾：“山山？山山。”是两句，各一个“山山”，应为 0.5"
    assert solve(["明月照高楼，明月照"], 2) == 1.0, (
        "结尾没有标点的“明月照”不算一句：只数“明月照高楼”的 4 个组合，应为 1.0"
    )
    assert solve(["白日依山尽，黄河入海流。"], 6) == 0.0, "每句只有 5 个字，没有 6 字组合，应返回 0.0"
    assert abs(solve(["春风又绿江南岸，春风不度玉门关。"], 2) - 11 / 12) < 1e-9, (
        "两句各 6 个两字组合，“春风”出现两次：12 个里不同的 11 种"
    )
    assert poems == [jingye], "solve 不应改动传进来的 texts"
    print("本课补全练习通过。")
