# 期望：崩溃
"""导入时就 os._exit(0)：一个结果也不交。"""
import os
os._exit(0)


def solve(*args):
    return []
