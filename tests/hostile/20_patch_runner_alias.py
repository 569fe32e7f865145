# 期望：答案错误
"""缓存是空的时候直接交回 k、v 本身（与输入共用内存），再在导入时改写 runner 里查“共用内存”的帮手，
让它永远说“不共用”（新的 runner 里是改写第一次结果的 _overwrite：换成什么也不做）。"""
import math
import sys

import torch

runner = sys.modules.get("__main__")
if __name__ != "__main__" and runner is not None:
    runner.shared_argument = runner._overwrite = lambda *args, **kwargs: None


def solve(q, k, v, past_keys, past_values):
    past, T = past_keys.shape[0], q.shape[0]
    keys = k if past == 0 else torch.cat([past_keys, k])
    values = v if past == 0 else torch.cat([past_values, v])
    S = past + T
    scores = q @ keys.T / math.sqrt(q.shape[-1])
    allowed = torch.ones(S, S, dtype=torch.bool).tril()[past : past + T, :S]
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ values, keys, values
