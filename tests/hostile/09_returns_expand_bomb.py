# 期望：答案错误
"""返回步长为 0 的巨型视图 [10^5, 10^5]。"""
import torch


def solve(words, positions, past=0):
    return torch.zeros(1).expand(10**5, 10**5)
