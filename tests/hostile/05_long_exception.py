# 期望：崩溃
"""抛出 20 MiB 控制字符与双向控制符的异常消息：消息截短、转义后显示。"""
raise ValueError("\x01\u202e\u200b" * (7 << 20))


def solve(*args):
    return []
