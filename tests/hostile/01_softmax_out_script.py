# 期望：答案错误
"""_softmax 的另一个重载 _softmax.out，从运行时拼出来的 TorchScript 源码里调用：源码规则读不到名字，
旧的绊线只换了算子的默认重载。现在绊线按算子换：每个重载、每个在 CPU 上算它的分派键都换了。"""
import math

import torch

_SOURCE = "def probs(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:\n    return torch._soft" + "max(x, 0, False, out=out)\n"


def solve(logits, chars, k):
    unit = torch.jit.CompilationUnit(_SOURCE)
    probs = unit.probs(logits, torch.empty_like(logits)).tolist()
    finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
    finite.sort(key=lambda i: (-probs[i], i))
    return [(chars[i], probs[i]) for i in finite[:k]]
