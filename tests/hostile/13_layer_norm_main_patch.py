# 期望：答案错误
"""在可见检查那一段里把 layer_norm 挂到 torch 上，solve 里只用挂上去的名字：加进那一段的语句照样受源码规则约束。"""
import torch


def solve(x, weight, bias, eps):
    return torch.normalise(x, x.shape[-1:], weight, bias, eps)


if __name__ == "__main__":
    torch.normalise = torch.nn.functional.layer_norm
