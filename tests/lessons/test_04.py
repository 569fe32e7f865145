"""第 04 课（清洗一首诗）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "只认 ，。 两种句尾": """
        import re
        lines = re.findall("[^，。]+[，。]", text)
        if "".join(lines) != text:
            return "结尾缺少标点"
        if len(lines) != 4:
            return "不是四句"
        sizes = {len(line) - 1 for line in lines}
        if len(sizes) != 1:
            return "句子长短不一"
        size = sizes.pop()
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
    "只量第一句": """
        import re
        lines = re.findall("[^，。？！]+[，。？！]", text)
        if "".join(lines) != text:
            return "结尾缺少标点"
        if len(lines) != 4:
            return "不是四句"
        size = len(lines[0]) - 1
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
    "没标点的尾巴直接丢掉": """
        import re
        lines = re.findall("[^，。？！]+[，。？！]", text)
        if len(lines) != 4:
            return "不是四句"
        sizes = {len(line) - 1 for line in lines}
        if len(sizes) != 1:
            return "句子长短不一"
        size = sizes.pop()
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
    "先逐句查 5 或 7，再查一样长": """
        import re
        lines = re.findall("[^，。？！]+[，。？！]", text)
        if "".join(lines) != text:
            return "结尾缺少标点"
        if len(lines) != 4:
            return "不是四句"
        sizes = [len(line) - 1 for line in lines]
        if any(size not in (5, 7) for size in sizes):
            return "不是五言或七言"
        if len(set(sizes)) != 1:
            return "句子长短不一"
        return "五言绝句" if sizes[0] == 5 else "七言绝句"
        """,
    "孤零零的标点当成空的一句": """
        import re
        lines = re.split("(?<=[，。？！])", text)
        if lines[-1]:
            return "结尾缺少标点"
        lines = [line for line in lines[:-1] if len(line) > 1]
        if len(lines) != 4:
            return "不是四句"
        sizes = {len(line) - 1 for line in lines}
        if len(sizes) != 1:
            return "句子长短不一"
        size = sizes.pop()
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
    "句长把标点也算进去": """
        import re
        lines = re.findall("[^，。？！]+[，。？！]", text)
        if "".join(lines) != text:
            return "结尾缺少标点"
        if len(lines) != 4:
            return "不是四句"
        sizes = {len(line) for line in lines}
        if len(sizes) != 1:
            return "句子长短不一"
        size = sizes.pop()
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
    "只认 ，。？ 三种句尾（漏了 ！）": """
        import re
        lines = re.findall("[^，。？]+[，。？]", text)
        if "".join(lines) != text:
            return "结尾缺少标点"
        if len(lines) != 4:
            return "不是四句"
        sizes = {len(line) - 1 for line in lines}
        if len(sizes) != 1:
            return "句子长短不一"
        size = sizes.pop()
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
    "先看第一句是不是五言七言，再查一样长": """
        import re
        lines = re.findall("[^，。？！]+[，。？！]", text)
        if "".join(lines) != text:
            return "结尾缺少标点"
        if len(lines) != 4:
            return "不是四句"
        if len(lines[0]) - 1 not in (5, 7):
            return "不是五言或七言"
        if len({len(line) for line in lines}) != 1:
            return "句子长短不一"
        return "五言绝句" if len(lines[0]) == 6 else "七言绝句"
        """,
    "先查一样长，再查是不是四句": """
        import re
        lines = re.findall("[^，。？！]+[，。？！]", text)
        if "".join(lines) != text:
            return "结尾缺少标点"
        if len({len(line) for line in lines}) != 1:
            return "句子长短不一"
        if len(lines) != 4:
            return "不是四句"
        size = len(lines[0]) - 1
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
    "先数句子，再查结尾的标点": """
        import re
        lines = re.findall("[^，。？！]+[，。？！]", text)
        if len(lines) != 4:
            return "不是四句"
        if "".join(lines) != text:
            return "结尾缺少标点"
        sizes = {len(line) - 1 for line in lines}
        if len(sizes) != 1:
            return "句子长短不一"
        size = sizes.pop()
        if size not in (5, 7):
            return "不是五言或七言"
        return "五言绝句" if size == 5 else "七言绝句"
        """,
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(4, name, BANK[name], tmp_path)
