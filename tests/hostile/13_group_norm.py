# 期望：答案错误
"""group_norm 分一组就是层归一化：源码规则按能力拦下（不只是 layer_norm 这个名字）。"""
import torch.nn.functional as F


def solve(x, weight, bias, eps):
    flat = x.reshape(-1, 1, x.shape[-1])
    return (F.group_norm(flat, 1, eps=eps).reshape(x.shape)) * weight + bias
