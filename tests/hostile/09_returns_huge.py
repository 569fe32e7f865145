# 期望：答案错误
"""每个用例返回同一个 28 MiB 的张量：超过交回的总量上限。"""
import torch


BIG = torch.zeros(7 << 20)


def solve(words, positions, past=0):
    return BIG
