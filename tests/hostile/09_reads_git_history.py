# 期望：不通过
"""从 .git 里找参考答案。"""
import os

found = os.listdir("{{REPO}}/.git")


def solve(words, positions, past=0):
    return words
