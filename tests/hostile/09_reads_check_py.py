# 期望：不通过
"""读 check.py 提前算出用例。"""
source = open("{{REPO}}/lessons/09/check.py", encoding="utf-8").read()


def solve(words, positions, past=0):
    return words
