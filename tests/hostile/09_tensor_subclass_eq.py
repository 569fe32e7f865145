# 期望：答案错误
"""返回一个 __eq__ 与 __torch_function__ 都作弊的张量子类。"""
import torch


class Liar(torch.Tensor):
    def __eq__(self, other):
        return True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return True


def solve(words, positions, past=0):
    return torch.zeros(1).as_subclass(Liar)
