"""第 07 课（最简单的语言模型：二元统计）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails, both_verdicts

BANK = {
    "按列归一": """
        smoothed = pair_counts.float() + k
        return smoothed / smoothed.sum(dim=0, keepdim=True)""",
    "分母忘了 k·V": """
        return (pair_counts.float() + k) / (pair_counts.float().sum(dim=1, keepdim=True) + k)""",
    "结果变成 float64": """
        smoothed = pair_counts.double() + k
        return smoothed / smoothed.sum(dim=1, keepdim=True)""",
    "只给出现过的格子加 k": """
        counts = pair_counts.float()
        smoothed = counts + k * (counts > 0)
        return smoothed / smoothed.sum(dim=1, keepdim=True).clamp(min=1e-12)""",
    "形状对但处处均匀": """
        V = pair_counts.shape[0]
        return torch.full((V, V), 1.0 / V)""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(7, name, BANK[name], tmp_path)


def test_a_float64_table_is_told_its_dtype_not_a_crash(tmp_path):
    """课文、起始文件与检查说的是同一件事：概率表是 float32。float64 的答案在可见检查与差分检查里都得到中文的
    dtype 说明（以前可见检查里的 allclose 崩溃成“Double did not match Float”）。"""
    with_checks, without = both_verdicts(7, BANK["结果变成 float64"], tmp_path)
    assert with_checks.kind == "wrong" and "概率表应是 float32 张量" in with_checks.message, with_checks.message
    assert without.kind == "wrong" and "dtype 应为 torch.float32，实际是 torch.float64" in without.message
    assert "did not match" not in with_checks.message + without.message
