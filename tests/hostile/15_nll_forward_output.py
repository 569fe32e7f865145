# 期望：答案错误
"""log-softmax 自己算，最后一步交给 nll_loss_forward 的 output 重载（TorchScript 里拼出名字）：旧的绊线只换了默认重载。"""
import torch

_SOURCE = (
    "def pick(x: torch.Tensor, t: torch.Tensor, out: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
    "    torch.ops.aten.n" + "ll_loss_forward(x, t, None, 1, -100, output=out, total_weight=w)\n"
    "    return out\n"
)


def solve(logits, targets, mask):
    unit = torch.jit.CompilationUnit(_SOURCE)
    z = logits[mask]
    z = z - z.max(dim=-1, keepdim=True).values
    log_probs = z - z.exp().sum(dim=-1, keepdim=True).log()
    return unit.pick(log_probs, targets[mask], torch.empty(()), torch.empty(()))
