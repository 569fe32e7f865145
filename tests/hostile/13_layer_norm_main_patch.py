# 期望：答案错误
"""把 __name__ 改成 "__main__"，让底部那一段在差分检查导入文件时也运行，在那里把 layer_norm 挂到 torch 上，
solve 里只用挂上去的名字：文件别处写出了 __name__，底部那一段就照样受源码规则约束。"""
import torch

__name__ = "__main__"


def solve(x, weight, bias, eps):
    return torch.normalise(x, x.shape[-1:], weight, bias, eps)


if __name__ == "__main__":
    torch.normalise = torch.nn.functional.layer_norm
