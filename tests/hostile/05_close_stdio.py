# 期望：不通过
"""关掉标准输入输出与答案描述符。"""
import os

for fd in range(0, 8):
    try:
        os.close(fd)
    except OSError:
        pass


def solve(*args):
    return []
