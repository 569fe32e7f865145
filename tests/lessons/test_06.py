"""第 06 课（关键词与条件区）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "特殊标记的编号写死": """
        ids = [2, form_id] + list(keyword_ids) + [4] + list(poem_ids) + [3]
        sep_at = 2 + len(keyword_ids)
        return ids, [t > sep_at for t in range(1, len(ids))]""",
    "掩码与 ids 一样长": """
        ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
        sep_at = 2 + len(keyword_ids)
        return ids, [t > sep_at for t in range(len(ids))]""",
    "掩码对齐了输入而不是目标": """
        ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
        sep_at = 2 + len(keyword_ids)
        return ids, [t > sep_at for t in range(len(ids) - 1)]""",
    "<eos> 不计入损失": """
        ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
        sep_at = 2 + len(keyword_ids)
        return ids, [sep_at < t < len(ids) - 1 for t in range(1, len(ids))]""",
    "<sep> 也计入损失": """
        ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
        sep_at = 2 + len(keyword_ids)
        return ids, [t >= sep_at for t in range(1, len(ids))]""",
    "忘了体裁标记": """
        ids = [bos_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
        sep_at = 1 + len(keyword_ids)
        return ids, [t > sep_at for t in range(1, len(ids))]""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(6, name, BANK[name], tmp_path)
