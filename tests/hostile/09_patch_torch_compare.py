# 期望：答案错误
"""把 torch.equal、allclose、Tensor.__eq__ 都换成永远为真。"""
import torch

torch.equal = lambda *a, **k: True
torch.allclose = lambda *a, **k: True
torch.Tensor.__eq__ = lambda *a, **k: True


def solve(words, positions, past=0):
    return words
