"""Muon：第 16 课在 AdamW 之后讲的变体（``--optimizer muon``），随课程发布的模型用它训练。

Block 里的矩阵（注意力与 MLP 的权重）交给 :class:`Muon`：Nesterov 动量先正交化（:func:`orthogonalize`）再更新；
字表、位置表、偏置与 LayerNorm 仍交给 AdamW。:class:`MuonWithAdamW` 让两个优化器在训练循环与存档眼里是一个。
怎样分给两边见 poetry_gpt/train.py 的 ``make_optimizer``；Muon 与 torch.optim.Muon 按更新幅度换算后相同
（tests/lib/test_train.py 验证）。

参考：Jordan et al., "Muon: An optimizer for hidden layers in neural networks", 2024；
Liu et al., "Muon is Scalable for LLM Training"（Muon 的更新幅度与权重衰减）, 2025。
"""

from __future__ import annotations

import math

import torch

NEWTON_SCHULZ = (3.4445, -4.7750, 2.0315)
"""五次多项式牛顿–舒尔茨迭代的系数 (a, b, c)：让零附近的斜率尽量大，五步就把奇异值推到 0.7–1.2 一带（Jordan 2024）。"""


def block_matrices(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    """交给 Muon 的参数：Block 里的二维权重（按 named_parameters 的次序）；字表、位置表、偏置与 LayerNorm 不在其中。"""
    return [p for n, p in model.named_parameters() if n.startswith("blocks.") and p.dim() == 2]


def orthogonalize(g: torch.Tensor, steps: int = 5) -> torch.Tensor:
    """把矩阵 g ``[m, n]`` 换成奇异向量相同、奇异值都接近 1 的矩阵（近似 U·Vᵀ，其中 g = U·S·Vᵀ），形状不变。

    先除以 Frobenius 范数让所有奇异值 ≤ 1，再做 steps 次 ``X ← aX + (bA + cA²)X``（A = X·Xᵀ）。
    一直用 fp32：torch.optim.Muon 在 bfloat16 里算，没有 AMX 的 CPU 上慢好几倍。
    """
    a, b, c = NEWTON_SCHULZ
    x = g / (g.norm() + 1e-7)
    tall = x.size(0) > x.size(1)
    if tall:  # 在短的那一边上算 X·Xᵀ，矩阵小
        x = x.T
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


class Muon(torch.optim.Optimizer):
    """Muon：二维的权重矩阵用 Nesterov 动量，更新前先正交化（:func:`orthogonalize`），再加解耦的权重衰减。

    更新乘 ``0.2·√max(m, n)``，让它的均方根与 AdamW 的更新相近，两个优化器就能共用一张学习率表
    （Liu et al., "Muon is Scalable for LLM Training", 2025）。只收二维参数；存档里每个参数一个 ``momentum_buffer``。
    """

    def __init__(self, params, lr: float, weight_decay: float, momentum: float = 0.95):
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "momentum": momentum})

    @torch.no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["momentum_buffer"] = torch.zeros_like(p)
                buf = state["momentum_buffer"]
                buf.lerp_(p.grad, 1 - momentum)
                update = orthogonalize(p.grad.lerp(buf, momentum))  # Nesterov：沿动量再往前看一步
                p.mul_(1 - lr * group["weight_decay"])
                p.add_(update, alpha=-lr * 0.2 * math.sqrt(max(p.shape)))


class MuonWithAdamW:
    """两个优化器当一个用：训练循环只调 param_groups、step、zero_grad，存档只调 state_dict 与 load_state_dict。"""

    def __init__(self, muon: torch.optim.Optimizer, adamw: torch.optim.AdamW):
        self.parts = {"muon": muon, "adamw": adamw}

    @property
    def param_groups(self) -> list[dict]:
        return [g for part in self.parts.values() for g in part.param_groups]

    def step(self) -> None:
        for part in self.parts.values():
            part.step()

    def zero_grad(self, set_to_none: bool = True) -> None:
        for part in self.parts.values():
            part.zero_grad(set_to_none=set_to_none)

    def state_dict(self) -> dict:
        return {name: part.state_dict() for name, part in self.parts.items()}

    def load_state_dict(self, state: dict) -> None:
        for name, part in self.parts.items():
            part.load_state_dict(state[name])
