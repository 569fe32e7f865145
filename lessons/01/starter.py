"""第 01 课补全练习：把一首绝句切成句子并数出每句字数。修改 solve，保持下方检查不变。"""
import torch

torch.set_num_threads(2)
torch.manual_seed(26)

LINE_ENDS = "，。？！"


def solve(text):
    """把一首诗切成句，数出每句的字数。

    Args:
        text: 带标点的诗，每句以 ，。？！ 之一结尾，如 "白日依山尽，黄河入海流。…"。

    Returns:
        列表，每句一项 (这一句不带结尾标点, 字数)，按原来的顺序，如 [("白日依山尽", 5), …]。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 1 检查；卡住时运行 ./poet hint 1 看提示。")


if __name__ == "__main__":
    got = solve("白日依山尽，黄河入海流。欲穷千里目，更上一层楼。")
    assert got == [("白日依山尽", 5), ("黄河入海流", 5), ("欲穷千里目", 5), ("更上一层楼", 5)], f"五言绝句切错了：{got}"
    got = solve("汉使却回凭寄语，黄金何日赎蛾眉？君王若问妾颜色，莫道不如宫里时。")
    assert [line for line, _ in got][1] == "黄金何日赎蛾眉", f"问号也是句尾，不该留在句子里：{got}"
    assert [n for _, n in got] == [7, 7, 7, 7], f"七言绝句每句 7 个字：{got}"
    assert solve("春眠不觉晓！") == [("春眠不觉晓", 5)], "感叹号也是句尾"
    print("本课补全练习通过。")
