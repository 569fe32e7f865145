# 期望：答案错误
"""返回嵌套十万层的列表。"""
import sys

sys.setrecursionlimit(1_000_000)


def solve(*args):
    out = []
    for _ in range(100_000):
        out = [out]
    return out
