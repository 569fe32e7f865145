"""第 20 课补全练习：贪心生成循环。修改 solve，保持下方检查不变。"""
import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(table, position_table, prompt, eos):
    """贪心解码：从前文 prompt 接着写，每一步取分数最高的编号，直到 <eos> 或写满前文长度。

    练习里的“模型”是一个替身，和 PoetryGPT 一样由两张表相加：序列的最后一个编号是 a、它在第 p 个位置
    （从 0 数，p = 序列长度 - 1）时，下一个编号的分数 logits 是 table[a] + position_table[p]，形状 [V]。

    Args:
        table: [V, V] 浮点张量。
        position_table: [L, V] 浮点张量；L 就是前文长度 context_length。
        prompt: list[int]，条件区的编号，至少 1 个、最多 L 个。不要修改它。
        eos: <eos> 的编号。

    Returns:
        list[int]：写出的编号，不含 prompt，也不含 <eos>。每一步：
        取分数最高的编号，几个并列最高时取编号最小的；它是 eos 就停下（eos 不放进结果）；
        否则接到序列后面。prompt 加上写出的编号满 L 个时停下，不再往下写。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 20 检查；卡住时运行 ./poet hint 20 看提示。")


if __name__ == "__main__":
    V, EOS = 6, 3
    count_up = torch.full((V, V), -1.0)
    for a in range(V):
        count_up[a, (a + 1) % V] = 1.0                  # 下一个编号 = 上一个 + 1（模 6）
    flat = torch.zeros(8, V)                            # 位置不加分，L = 8
    prompt, before = [0], count_up.clone()
    assert solve(count_up, flat, prompt, EOS) == [1, 2], "从 0 往上数，数到 eos = 3 就停，3 不放进结果"
    assert prompt == [0], "不要修改 prompt：先复制一份再往后接"
    assert torch.equal(count_up, before) and torch.equal(flat, torch.zeros(8, V)), "不要修改两张表"
    assert solve(count_up, flat, [4], EOS) == [5, 0, 1, 2], "4 之后是 5、0、1、2，再下一个是 eos"
    assert solve(count_up, torch.zeros(3, V), [4], EOS) == [5, 0], "L = 3：prompt 1 个加写出的 2 个，满 3 个就停"
    assert solve(count_up, torch.zeros(2, V), [4, 4], EOS) == [], "prompt 已经有 L 个编号，什么也不能写"
    assert solve(torch.zeros(V, V), flat, [2], 5) == [0] * 7, "分数全部并列时取编号最小的 0，一直写到 L 个"
    by_position = torch.zeros(8, V)
    by_position[3, EOS] = 5.0                           # 最后一个编号在第 3 个位置时，eos 分数最高
    assert solve(count_up, by_position, [4, 4], EOS) == [5, 0], "位置从 0 数：写出 5、0 之后，最后一个编号在第 3 个位置"
    print("本课补全练习通过。")
