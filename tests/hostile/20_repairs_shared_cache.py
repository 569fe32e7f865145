# 期望：答案错误
"""缓存空着时直接交回 k、v 本身（与输入共用内存），每次调用开头把批改程序改写过的 k、v 修回原样：旧的 runner
改写第一次的结果之后用同一组参数再调用一次，修回之后第二次也对。现在改写结果之后紧接着给参数拍快照，
学习者的代码没有机会先修：k 跟着变了，就是共用内存。"""
import math

import torch

_given = []


def solve(q, k, v, past_keys, past_values):
    for tensor, saved in _given:
        tensor.copy_(saved)
    _given.clear()
    past, T = past_keys.shape[0], q.shape[0]
    if past == 0:
        _given.extend([(k, k.clone()), (v, v.clone())])
    keys = k if past == 0 else torch.cat([past_keys, k])
    values = v if past == 0 else torch.cat([past_values, v])
    S = past + T
    scores = q @ keys.T / math.sqrt(q.shape[-1])
    allowed = torch.ones(S, S, dtype=torch.bool).tril()[past : past + T, :S]
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ values, keys, values
