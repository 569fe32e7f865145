# 期望：崩溃
"""用拼出来的名字导入课程包（源码规则查不到）：沙箱里根本没有 poetry_gpt，导入失败。"""
metrics = __import__("poetry" + "_gpt.metrics", fromlist=["distinct_n"])


def solve(texts, n):
    return metrics.distinct_n(texts, n)
