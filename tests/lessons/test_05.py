"""第 05 课（汉字表）：错解库——学习者真会写出来的错误 solve，./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "同频按第一次出现的先后": """
        counts = Counter()
        for text in texts:
            counts.update(text)
        kept = [ch for ch, n in counts.items() if n >= min_count]
        kept.sort(key=lambda ch: -counts[ch])
        return list(specials) + kept""",
    "门槛用了 >": """
        counts = Counter()
        for text in texts:
            counts.update(text)
        kept = [ch for ch, n in counts.items() if n > min_count]
        kept.sort(key=lambda ch: (-counts[ch], ord(ch)))
        return list(specials) + kept""",
    "特殊标记放在最后": """
        counts = Counter()
        for text in texts:
            counts.update(text)
        kept = [ch for ch, n in counts.items() if n >= min_count]
        kept.sort(key=lambda ch: (-counts[ch], ord(ch)))
        return kept + list(specials)""",
    "数的是含这个字的诗有几首": """
        counts = Counter()
        for text in texts:
            counts.update(set(text))
        kept = [ch for ch, n in counts.items() if n >= min_count]
        kept.sort(key=lambda ch: (-counts[ch], ord(ch)))
        return list(specials) + kept""",
    "同频时码位大的在前": """
        counts = Counter()
        for text in texts:
            counts.update(text)
        kept = [ch for ch, n in counts.items() if n >= min_count]
        kept.sort(key=lambda ch: (counts[ch], ord(ch)), reverse=True)
        return list(specials) + kept""",
    "标点不收进表（只收汉字）": """
        counts = Counter(ch for text in texts for ch in text if ch not in "，。？！")
        kept = [ch for ch, n in counts.items() if n >= min_count]
        kept.sort(key=lambda ch: (-counts[ch], ord(ch)))
        return list(specials) + kept""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(5, name, BANK[name], tmp_path)
