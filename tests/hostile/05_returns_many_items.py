# 期望：不通过
"""返回两百万项的列表。"""
def solve(*args):
    return [0] * 2_000_000
