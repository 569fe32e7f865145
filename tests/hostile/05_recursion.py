# 期望：崩溃
"""无限递归。"""
def solve(*args):
    return solve(*args)
