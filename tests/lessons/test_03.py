"""第 03 课（读诗：语料一览）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "用 most_common 的顺序": """
        counts = Counter(ch for text in texts for ch in text if ch not in PUNCTUATION)
        return counts.most_common(k)""",
    "只去掉 ，。 两种标点": """
        counts = Counter(ch for text in texts for ch in text if ch not in "，。")
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]""",
    "数的是含这个字的诗有几首": """
        counts = Counter(ch for text in texts for ch in set(text) if ch not in PUNCTUATION)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]""",
    "同频时码位大的在前": """
        counts = Counter(ch for text in texts for ch in text if ch not in PUNCTUATION)
        return sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k]""",
    "多取一个": """
        counts = Counter(ch for text in texts for ch in text if ch not in PUNCTUATION)
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k + 1]""",
    "只去掉 ，。？（漏了 ！）": """
        counts = Counter(ch for text in texts for ch in text if ch not in "，。？")
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(3, name, BANK[name], tmp_path)
