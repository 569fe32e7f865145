# 期望：答案错误
"""先 reload torch 的 adam 模块、再 reload adamw 模块，得到一份新的 AdamW 类（名字经 pkgutil.resolve_name 拼出来），
用它做这一步：旧的绊线只换了已有的类，新的这份就是原物。现在绊线所在的源码文件再被执行，就碰上绊线。"""
import importlib
import pkgutil
import sys

import torch


def solve(params, grads, m, v, step, lr, weight_decay):
    importlib.reload(sys.modules["torch.op" + "tim.ad" + "am"])
    module = importlib.reload(sys.modules["torch.op" + "tim.ad" + "amw"])
    fresh = pkgutil.resolve_name(module.__name__ + ":Ad" + "amW")
    tensors = {k: torch.nn.Parameter(p.clone()) for k, p in params.items()}
    groups = [
        {"params": [p for p in tensors.values() if p.dim() >= 2], "weight_decay": weight_decay},
        {"params": [p for p in tensors.values() if p.dim() < 2], "weight_decay": 0.0},
    ]
    optimizer = fresh(groups, lr=lr, betas=(0.9, 0.95), eps=1e-8)
    for k, p in tensors.items():
        p.grad = grads[k].clone()
        optimizer.state[p] = {"step": torch.tensor(float(step)), "exp_avg": m[k].clone(), "exp_avg_sq": v[k].clone()}
    optimizer.step()
    new_m = {k: optimizer.state[p]["exp_avg"].clone() for k, p in tensors.items()}
    new_v = {k: optimizer.state[p]["exp_avg_sq"].clone() for k, p in tensors.items()}
    return {k: p.detach().clone() for k, p in tensors.items()}, new_m, new_v
