"""学习者看的消息：语法错误有中文说明，后面附着 Python 的原文。"""

import pytest

SYNTAX_ERRORS = [  # (源代码, 中文说明里的一段)
    ("x = 1，2\n", "代码里不能用字符“，”：标点要用英文半角"),
    ("if x:\n\tpass\n        pass\n", "缩进里混用了制表符（Tab）和空格"),
    ("def f():\nreturn 1\n", "第 1 行的 def 后面要有缩进的函数体"),
    ("if x\n    pass\n", "这里少了冒号 :"),
    ("f(1, 2\n", "“(”没有配对的右括号"),
    ("x = [1 2]\n", "是不是漏了逗号？"),
    ("print 'hi'\n", "调用 print 要加括号"),
    ("  x = 1\n", "这一行多了缩进"),
    ("s = 'abc\n", "字符串没有结束"),
    ("x = 1 +\n", "语法错误"),
]


@pytest.mark.parametrize("source, chinese", SYNTAX_ERRORS)
def test_syntax_errors_get_a_chinese_gloss_with_the_original(source, chinese):
    from courseware.messages import syntax_message

    with pytest.raises(SyntaxError) as caught:
        compile(source, "mine.py", "exec")
    message = syntax_message(caught.value.msg)
    assert chinese in message and message.endswith(f"（{caught.value.msg}）")
    assert syntax_message("something new in Python 3.99") == "something new in Python 3.99"


TORCH_ERRORS = [  # (出错的代码, 中文说明里的一段)
    ("torch.zeros(2, 3) + torch.zeros(2, 4)", "dim=1 那一维一个是 3、一个是 4"),
    ("torch.zeros(2, 3) @ torch.zeros(4, 5)", "最后一维 3 要等于右边 [4, 5] 的第一维 4"),
    ("torch.zeros(3)[5]", "下标 5 超出了范围：dim=0 那一维只有 3 个"),
    ("torch.zeros(6).view(4, 2)", "输入一共 6 个数"),
    ("torch.zeros(2, 3).t().view(6)", "改用 reshape"),
    ("torch.cat([torch.zeros(2, 3), torch.zeros(2, 4)])", "除了 dim=0 那一维"),
    ("torch.arange(3).mean()", "先 .float()"),
    ("torch.zeros(2, 3).masked_fill(torch.zeros(2, 3), 1.0)", "掩码要是 bool 张量"),
    ("torch.einsum('ij,jk->ik', torch.zeros(2, 3, 4), torch.zeros(3, 4))", "写了 2 个下标，它却有 3 维"),
    ("torch.einsum('ij,jk->ik', torch.zeros(2, 3), torch.zeros(4, 5))", "同一个字母 j 要是同样长的维"),
    ("(lambda: None)()[0]", "忘了写 return"),
    ("(lambda: None)().shape", "忘了写 return"),
    ("torch.zeros(3).item()", "这个张量有 3 个数"),
    ("bool(torch.zeros(3))", ".all()"),
    ("torch.allclose(torch.zeros(2, dtype=torch.float64), torch.zeros(2))", "Double 是 float64"),
    ("torch.stack([torch.zeros(2), torch.zeros(3)])", "第 0 个是 [2]，第 1 个是 [3]"),
    ("1 / len([])", "除以了 0"),
    ("[1, 2][5]", "下标从 0 数"),
    ("[1, 2][torch.tensor(0.5)]", ".item()"),
    ("torch.zeros(0).max()", "空张量"),
    ("torch.zeros(3, dtype=torch.long).add_(0.5)", "存不进 Long 的张量"),
]


@pytest.mark.parametrize("code, chinese", TORCH_ERRORS)
def test_torch_errors_get_a_chinese_sentence_before_the_english(code, chinese):
    import traceback

    import torch

    from courseware.messages import error_hint

    try:
        eval(code, {"torch": torch})
    except Exception as e:
        english = "".join(traceback.format_exception_only(type(e), e)).rstrip()
    message = f"差分检查出错：\n  mine.py 第 3 行（在 solve 里）：return {code}\n{english}"
    assert chinese in error_hint(message)


def test_unknown_english_errors_get_a_general_sentence_and_chinese_ones_none():
    from courseware.messages import error_hint

    assert "英文报错原文" in error_hint("差分检查出错：\nKeyError: 3")
    assert error_hint("差分检查出错：\nValueError: 位置表不够长") is None
    assert error_hint("程序以退出码 3 结束，没有完成检查") is None
