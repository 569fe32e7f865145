# 期望：答案错误
"""logsumexp 的 out 重载，从运行时拼出来的 TorchScript 源码里调用（torch.ops.aten 的写法）：源码规则读不到名字，
旧的绊线只换了默认重载。现在每个重载都是绊线。"""
import torch

_SOURCE = (
    "def lse(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:\n"
    "    return torch.ops.aten.logsum" + "exp(x, [1], False, out=out)\n"
)


def solve(logits, targets, mask):
    unit = torch.jit.CompilationUnit(_SOURCE)
    z = logits[mask]
    total = unit.lse(z, torch.empty(z.shape[0]))
    picked = z.gather(-1, targets[mask][:, None])[:, 0]
    return (total - picked).sum() / mask.sum()
