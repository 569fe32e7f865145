# 期望：答案错误
"""返回 meta 张量：只有形状，没有数值。"""
import torch


def solve(words, positions, past=0):
    return torch.empty(words.shape, device="meta")
