"""第 13 课（残差与层归一化）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "方差除以 C-1": """
        mean = x.mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(x.var(-1, keepdim=True) + eps) * weight + bias""",
    "eps 加在开方之后": """
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / (torch.sqrt(var) + eps) * weight + bias""",
    "在倒数第二维上归一化": """
        mean = x.mean(-2, keepdim=True)
        var = ((x - mean) ** 2).mean(-2, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * weight + bias""",
    "捷径：F.layer_norm": """
        return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps)""",
    "原地减去均值": """
        x -= x.mean(-1, keepdim=True)
        var = (x ** 2).mean(-1, keepdim=True)
        return x / torch.sqrt(var + eps) * weight + bias""",
    "weight 与 bias 用反了": """
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * bias + weight""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(13, name, BANK[name], tmp_path)
