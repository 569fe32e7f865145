# 期望：崩溃
"""用拼出来的名字导入课程包、取出参考实现（源码规则查不到）：沙箱里根本没有 poetry_gpt，导入失败。"""
reference = getattr(__import__("poetry" + "_gpt.metrics", fromlist=["x"]), "distinct" + "_n")


def solve(texts, n):
    return reference(texts, n)
