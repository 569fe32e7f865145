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
    from poetry_gpt.courseware.messages import syntax_message

    with pytest.raises(SyntaxError) as caught:
        compile(source, "mine.py", "exec")
    message = syntax_message(caught.value.msg)
    assert chinese in message and message.endswith(f"（{caught.value.msg}）")
    assert syntax_message("something new in Python 3.99") == "something new in Python 3.99"
