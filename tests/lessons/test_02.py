"""第 02 课（张量与形状）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。
没有可见检查时，差分检查也认出“原地改了输入”。"""

import pytest
from lesson_bank import assert_bank_entry_fails, wrong_file

from courseware.catalogue import BY_NUMBER
from courseware.grading import check_file

BANK = {
    "不连续时用 view": """
        B, T, V = logits.shape
        return (logits + bias).view(B * T, V)""",
    "原地加到 logits 上": """
        B, T, V = logits.shape
        logits += bias
        return logits.reshape(B * T, V)""",
    "结果变成 float64": """
        B, T, V = logits.shape
        return (logits + bias).double().reshape(B * T, V)""",
    "先转置再摊平，行序变成 t*B + b": """
        B, T, V = logits.shape
        return (logits + bias).transpose(0, 1).reshape(B * T, V)""",
    "把 -inf 换成一个很小的数": """
        B, T, V = logits.shape
        return (logits + bias.clamp(min=-1e4)).reshape(B * T, V)""",
    "总是返回 float32（先 .float()）": """
        B, T, V = logits.shape
        return (logits.float() + bias.float()).reshape(B * T, V)""",
    "新建一个 float32 的结果再填进去": """
        B, T, V = logits.shape
        out = torch.empty(B * T, V)
        out[:] = (logits + bias).reshape(B * T, V)
        return out""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(2, name, BANK[name], tmp_path)


def test_the_grader_catches_an_input_changed_in_place(tmp_path):
    """没有可见检查时，./poet check 的差分检查也认出“原地改了输入”：输出与参考答案一样，但 logits 被改了。"""
    path = wrong_file(2, BANK["原地加到 logits 上"], tmp_path)
    path.write_text(
        path.read_text(encoding="utf-8").replace('if __name__ == "__main__":', "if False:"), encoding="utf-8"
    )
    verdict = check_file(BY_NUMBER[2], path)
    assert verdict.kind == "wrong" and "改动了传进来的第 1 个参数" in verdict.message, verdict.message
