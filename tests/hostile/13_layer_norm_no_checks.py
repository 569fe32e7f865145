# 期望：答案错误
"""删掉底部的可见检查，直接调用本课说不要用的 F.layer_norm（答案本身是对的）。"""
import torch


def solve(x, weight, bias, eps):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps)
