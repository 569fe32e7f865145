# 期望：答案错误
"""用拼出来的名字导入课程包、取出参考实现：名字不是写出来的字符串的 __import__、getattr 在有源码规则的课里
一律不许用，批改程序在运行之前就拦下（万一漏过，沙箱里也没有 poetry_gpt）。"""
reference = getattr(__import__("poetry" + "_gpt.metrics", fromlist=["x"]), "distinct" + "_n")


def solve(texts, n):
    return reference(texts, n)
