# 期望：答案错误
"""先减去均值，剩下的交给 rms_norm（减去均值之后就是层归一化）：名字在 TorchScript 源码里拼出来，不经
torch.rms_norm 这个 Python 名字，走到的是 torch._C 里类上的原函数同一个算子。现在 aten::rms_norm 按算子换成绊线
（它是复合算子：绊线装在 CompositeImplicitAutograd 上，带梯度与不带梯度都碰得到）。"""
import torch

_SOURCE = (
    "def norm(x: torch.Tensor, n: int, eps: float) -> torch.Tensor:\n"
    "    return torch.ops.aten.rms" + "_norm(x, [n], None, eps)\n"
)


def solve(x, weight, bias, eps):
    unit = torch.jit.CompilationUnit(_SOURCE)
    centered = x - x.mean(dim=-1, keepdim=True)
    return unit.norm(centered, x.shape[-1], eps) * weight + bias
