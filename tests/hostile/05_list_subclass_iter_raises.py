# 期望：崩溃
"""返回一个一遍历就抛错的列表子类。"""
class Boom(list):
    def __iter__(self):
        raise RuntimeError("boom")

    def __len__(self):
        raise RuntimeError("boom")


def solve(*args):
    return Boom(["x"])
