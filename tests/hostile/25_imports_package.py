# 期望：答案错误
"""删掉底部的可见检查，直接调用课程包里的参考实现 distinct_n：本课的源码规则在批改程序里，照样拦下。"""
from poetry_gpt.metrics import distinct_n


def solve(texts, n):
    return distinct_n(texts, n)
