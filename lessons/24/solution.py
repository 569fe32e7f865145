"""第 24 课补全练习：找出一首绝句里犯孤平、三平尾的句子。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(lines, tones):
    """一三五不论的两个例外：逐句找出孤平与三平尾（与 poetry_gpt.prosody.tail_fault 的规则相同）。

    只看以平声收尾的句子（句尾字的平仄不是“仄”），只看每句的最后五个字（七言的前两字不管）：

    - 三平尾：最后三个字都是平声——倒数第三、第二字是“平”（两读的“平仄”不算：它可以读仄）；
    - 孤平：最后五个字的前四个里，可能读平的字（“平”“平仄”，以及查不到的“未知”：不猜它是仄）
      至多一个，而且紧挨着韵脚的倒数第二字不是（仄平仄仄平、仄仄仄仄平）。仄平平仄平 是孤平拗救，不算。

    Args:
        lines: 一首绝句的四句，不带标点，每句 5 或 7 个字，如 ["白日依山尽", "黄河入海流", ...]。
        tones: 与 lines 一一对应的四个列表，每个字的平仄："平"、"仄"、"平仄"（两读）或 "未知"（表里没有）。
            句中的字是它在句中的读法（prosody.line_tone），句尾字是它的全部读音（prosody.tone_class）。

    Returns:
        list：犯了的句子，按句子的先后，每项是 (第几句，从 1 数, "孤平" 或 "三平尾")；一句也没犯时是空列表。
        输入都不改动。
    """
    faults = []
    for number, line_tones in enumerate(tones, start=1):
        tail = line_tones[-5:]  # 七言只看后五字
        if tail[4] == "仄":  # 仄声收尾的句子谈不上孤平、三平尾
            continue
        if tail[2] == "平" and tail[3] == "平":
            faults.append((number, "三平尾"))
            continue
        may_be_ping = [tone != "仄" for tone in tail[:4]]
        if sum(may_be_ping) <= 1 and not may_be_ping[3]:
            faults.append((number, "孤平"))
    return faults


if __name__ == "__main__":
    P, Z, B = "平", "仄", "平仄"
    # 几首诗逐字的平仄，从 data/rhymes.json 查来：句中的字按句中的读法，句尾字按全部读音
    chu_sai = (
        ["秦时明月汉时关", "万里长征人未还", "但使龙城飞将在", "不教胡马度阴山"],
        [[P, P, P, Z, Z, P, P], [Z, Z, B, P, P, Z, P], [Z, Z, P, P, P, B, Z], [Z, B, P, Z, Z, P, P]],
    )
    got = solve(*chu_sai)
    assert isinstance(got, list), f"应返回列表，实际是 {type(got).__name__}：{got!r}"
    assert got == [], f"王昌龄《出塞》没有孤平、三平尾，应为 []，实际是 {got!r}"
    gu = (
        ["秦时明月汉时关", "万里远征客未还", "但使龙城飞将在", "不教胡马度阴山"],
        [[P, P, P, Z, Z, P, P], [Z, Z, Z, P, Z, Z, P], [Z, Z, P, P, P, B, Z], [Z, B, P, Z, Z, P, P]],
    )
    got = solve(*gu)
    assert [tuple(x) for x in got] == [(2, "孤平")], (
        f"“万里远征客未还”后五字是 仄平仄仄平：除韵脚只有一个平声字、两边都仄，是孤平，应为 [(2, '孤平')]，实际是 {got!r}"
    )
    san = (
        ["秦时明月汉时关", "万里长征人未还", "但使龙城飞将在", "不教胡马来阴山"],
        [[P, P, P, Z, Z, P, P], [Z, Z, B, P, P, Z, P], [Z, Z, P, P, P, B, Z], [Z, B, P, Z, P, P, P]],
    )
    got = solve(*san)
    assert [tuple(x) for x in got] == [(4, "三平尾")], (
        f"“来阴山”三个平声字收尾，是三平尾，应为 [(4, '三平尾')]，实际是 {got!r}"
    )
    # 贺知章《回乡偶书》第四句“笑问客从何处来”：后五字 仄平平仄平，第三字“何”补回了平声——孤平拗救，不算孤平
    hui_xiang = (
        ["少小离家老大回", "乡音难改鬓毛衰", "儿童相见不相识", "笑问客从何处来"],
        [[Z, Z, B, P, Z, Z, B], [P, P, B, Z, Z, P, P], [P, P, B, Z, Z, B, Z], [Z, Z, Z, P, P, Z, P]],
    )
    got = solve(*hui_xiang)
    assert got == [], f"《回乡偶书》第四句 仄平平仄平 是孤平拗救，不算孤平；应为 []，实际是 {got!r}"
    # 两读的字：孤平把“平仄”当作可能读平（长征客不还 不是孤平）；三平尾只认“平”（看春花：看可以读仄）
    chang = (
        ["秦时明月汉时关", "万里长征客不还", "但使龙城飞将在", "不教胡马度阴山"],
        [[P, P, P, Z, Z, P, P], [Z, Z, B, P, Z, Z, P], [Z, Z, P, P, P, B, Z], [Z, B, P, Z, Z, P, P]],
    )
    assert solve(*chang) == [], f"“长”两读、可能读平：长征客不还 不是孤平，应为 []，实际是 {solve(*chang)!r}"
    kan = (
        ["远上寒山石径斜", "白云生处有人家", "停车坐爱枫林晚", "霜叶红时看春花"],
        [[Z, Z, P, P, Z, Z, P], [Z, P, P, Z, Z, P, P], [P, P, Z, Z, P, P, Z], [P, Z, P, P, B, P, P]],
    )
    assert solve(*kan) == [], f"倒数第三字“看”两读，可以读仄：不是三平尾，应为 []，实际是 {solve(*kan)!r}"
    five = (
        ["向晚意不适", "驱车登古原", "夕阳无限好", "只是近黄昏"],
        [[Z, Z, Z, Z, Z], [P, P, P, Z, P], [Z, P, P, Z, Z], [Z, Z, Z, P, P]],
    )
    assert solve(*five) == [], f"李商隐《登乐游原》没有孤平、三平尾，实际是 {solve(*five)!r}"
    kept = [list(t) for t in gu[1]]
    solve(*gu)
    assert gu[1] == kept, "solve 不应改动传进来的 tones"
    print("本课补全练习通过。")
