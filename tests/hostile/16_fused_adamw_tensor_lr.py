# 期望：答案错误
"""学习率写成张量，选中 _fused_adamw_ 的 tensor_lr 重载（TorchScript 里拼出名字）：旧的绊线只换了默认重载。"""
import torch

_SOURCE = (
    "def step(p: List[torch.Tensor], g: List[torch.Tensor], m: List[torch.Tensor], v: List[torch.Tensor],\n"
    "         s: List[torch.Tensor], lr: torch.Tensor, wd: float):\n"
    "    torch.ops.aten._fu" + "sed_ad" + "amw_(p, g, m, v, [], s, lr=lr, beta1=0.9, beta2=0.95, weight_decay=wd,\n"
    "        eps=1e-8, amsgrad=False, maximize=False)\n"
)


def solve(params, grads, m, v, step, lr, weight_decay):
    unit = torch.jit.CompilationUnit(_SOURCE)
    new_params = {k: t.clone() for k, t in params.items()}
    new_m = {k: t.clone() for k, t in m.items()}
    new_v = {k: t.clone() for k, t in v.items()}
    for name in params:
        decay = weight_decay if params[name].dim() >= 2 else 0.0
        steps = [torch.tensor(float(step + 1))]
        unit.step([new_params[name]], [grads[name]], [new_m[name]], [new_v[name]], steps, torch.tensor(lr), decay)
    return new_params, new_m, new_v
