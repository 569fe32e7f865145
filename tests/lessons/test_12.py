"""第 12 课（前馈网络）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "捷径：F.gelu": """
        h = x @ up_weight.T + up_bias
        return torch.nn.functional.gelu(h) @ down_weight.T + down_bias""",
    "GELU 用了 tanh 近似": """
        h = x @ up_weight.T + up_bias
        h = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
        return h @ down_weight.T + down_bias""",
    "用 ReLU 代替 GELU": """
        h = (x @ up_weight.T + up_bias).clamp(min=0)
        return h @ down_weight.T + down_bias""",
    "收回时忘了偏置": """
        h = x @ up_weight.T + up_bias
        h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
        return h @ down_weight.T""",
    "捷径：F.linear": """
        h = torch.nn.functional.linear(x, up_weight, up_bias)
        h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
        return torch.nn.functional.linear(h, down_weight, down_bias)""",
    "GELU 的 √2 乘错了地方": """
        h = x @ up_weight.T + up_bias
        h = 0.5 * h * (1 + torch.erf(h * math.sqrt(2)))
        return h @ down_weight.T + down_bias""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(12, name, BANK[name], tmp_path)
