"""第 09 课（让模型知道字的先后）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "忘了 past：总从第 0 行取": """
        return words + positions[:words.shape[1]]""",
    "从第 past + 1 行开始取": """
        T = words.shape[1]
        if past + T > positions.shape[0]:
            raise ValueError("太长")
        return words + positions[past + 1:past + T + 1]""",
    "正好用完最后一行时也拒绝": """
        T = words.shape[1]
        if past + T >= positions.shape[0]:
            raise ValueError("太长")
        return words + positions[past:past + T]""",
    "太长时悄悄截断": """
        T = words.shape[1]
        rows = positions[past:past + T]
        return words[:, :rows.shape[0]] + rows""",
    "原地加到 words 上": """
        T = words.shape[1]
        if past + T > positions.shape[0]:
            raise ValueError("太长")
        words += positions[past:past + T]
        return words""",
    "拼接而不是相加": """
        T = words.shape[1]
        if past + T > positions.shape[0]:
            raise ValueError("太长")
        rows = positions[past:past + T].expand(words.shape[0], -1, -1)
        return torch.cat([words, rows], dim=-1)""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(9, name, BANK[name], tmp_path)
