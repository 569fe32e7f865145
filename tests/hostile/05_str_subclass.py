# 期望：答案错误
"""返回列表里全是 __eq__ 永远为真的 str 子类。"""
class S(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


def solve(*args):
    return [S("错")] * 30
