# 期望：不通过
"""把 isinstance、type、len 换成乱答的版本。"""
import builtins

builtins.isinstance = lambda *a: True
builtins.len = lambda x: 24


def solve(words, positions, past=0):
    return words
