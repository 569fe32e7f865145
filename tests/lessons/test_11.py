"""第 11 课（多头注意力）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "拆头时直接 view 成 [B, H, T, C/H]": """
        if t.dim() == 3:
            B, T, C = t.shape
            return t.reshape(B, n_heads, T, C // n_heads)
        B, H, T, D = t.shape
        return t.transpose(1, 2).reshape(B, T, H * D)""",
    "合头时没有转置": """
        if t.dim() == 3:
            B, T, C = t.shape
            return t.view(B, T, n_heads, C // n_heads).transpose(1, 2)
        B, H, T, D = t.shape
        return t.reshape(B, T, H * D)""",
    "合头时对转置后的张量用 view": """
        if t.dim() == 3:
            B, T, C = t.shape
            return t.view(B, T, n_heads, C // n_heads).transpose(1, 2)
        B, H, T, D = t.shape
        return t.transpose(1, 2).view(B, T, H * D)""",
    "各头交错取列": """
        if t.dim() == 3:
            B, T, C = t.shape
            return t.view(B, T, C // n_heads, n_heads).permute(0, 3, 1, 2)
        B, H, T, D = t.shape
        return t.permute(0, 2, 3, 1).reshape(B, T, H * D)""",
    "结果变成 float64": """
        if t.dim() == 3:
            B, T, C = t.shape
            return t.double().view(B, T, n_heads, C // n_heads).transpose(1, 2)
        B, H, T, D = t.shape
        return t.double().transpose(1, 2).reshape(B, T, H * D)""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(11, name, BANK[name], tmp_path)
