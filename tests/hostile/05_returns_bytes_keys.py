# 期望：答案错误
"""返回键为 bytes 的字典与奇怪的类型。"""
def solve(*args):
    return {b"k": 1, (1, 2): 3}
