"""第 10 课（注意力：汇总前文的信息）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "先 softmax 再把后文清零": """
        return F.softmax(scores, dim=-1).tril()""",
    "softmax 做在倒数第二维": """
        T = scores.shape[-1]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-2)""",
    "遮住的是前文": """
        T = scores.shape[-1]
        causal = torch.ones(T, T, dtype=torch.bool).triu()
        return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)""",
    "原地 masked_fill_ 改了输入": """
        T = scores.shape[-1]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        scores.masked_fill_(~causal, float("-inf"))
        return F.softmax(scores, dim=-1)""",
    "连对角线也遮住": """
        T = scores.shape[-1]
        causal = torch.ones(T, T, dtype=torch.bool).tril(-1)
        return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)""",
    "结果变成 float64": """
        T = scores.shape[-1]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        return F.softmax(scores.double().masked_fill(~causal, float("-inf")), dim=-1)""",
    "T 取 scores.shape[0]（三维时那是 B）": """
        T = scores.shape[0]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)""",
    "总是返回 float32（softmax 写了 dtype=torch.float32）": """
        T = scores.shape[-1]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1, dtype=torch.float32)""",
    "先 .float() 再遮挡（float64 的分数变成 float32）": """
        T = scores.shape[-1]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        return F.softmax(scores.float().masked_fill(~causal, float("-inf")), dim=-1)""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(10, name, BANK[name], tmp_path)
