# 期望：答案错误
"""返回一个 __eq__ 永远为真的对象。"""
class Anything:
    def __eq__(self, other):
        return True

    def __len__(self):
        return 24


def solve(*args):
    return Anything()
