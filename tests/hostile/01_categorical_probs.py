# 期望：答案错误
"""Categorical(logits=…).probs 替你做完了 softmax：源码规则按本课要禁的能力（torch.distributions）拦下。"""
import math

from torch.distributions import Categorical


def solve(logits, chars, k):
    probs = Categorical(logits=logits).probs.tolist()
    finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
    finite.sort(key=lambda i: (-probs[i], i))
    return [(chars[i], probs[i]) for i in finite[:k]]
