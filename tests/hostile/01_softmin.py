# 期望：答案错误
"""softmin(-x) 就是 softmax(x)：名字里没有 softmax，源码规则读不出来；差分检查时 runner 换上的绊线碰上了。"""
import math

import torch
import torch.nn.functional as F


def solve(logits, chars, k):
    probs = F.softmin(-logits, dim=0).tolist()
    finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
    finite.sort(key=lambda i: (-probs[i], i))
    return [(chars[i], probs[i]) for i in finite[:k]]
