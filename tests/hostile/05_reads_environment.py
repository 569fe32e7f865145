# 期望：崩溃
"""读环境变量，找老师的 PATH 与别的变量（跑测试时批改程序的环境里有 PYTEST_CURRENT_TEST、HOME 这些）：消息里报出看到了什么。"""
import os

raise RuntimeError(f"PATH={os.environ.get('PATH')} 变量={sorted(os.environ)}")


def solve(*args):
    return []
