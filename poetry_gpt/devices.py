"""训练在哪里跑：设备（CPU 或 CUDA）、精度（fp32 或 bf16，第 17 课）与 torchrun 下的多进程。

:func:`poetry_gpt.train.train` 用这里的三样东西：``resolve_device`` 选设备，``resolve_precision`` 选精度，
:class:`Workers` 管进程组——单进程时它的方法什么也不做。训练的一步（``train.train_step``）本身不知道 bf16 与
多进程：:meth:`Workers.loss_function` 从旁边换掉它算损失的那一个函数。
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from .data import make_batch
from .loss import ScoredLoss, batch_loss
from .settings import PRECISIONS


def resolve_device(name: str) -> torch.device:
    """auto → 有 CUDA 用 CUDA，否则 CPU。Raises: ValueError（要 cuda 却没有）。"""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("这台机器没有可用的 CUDA 显卡，请用 --device cpu")
    return torch.device(name)


def fast_bf16(device: torch.device) -> bool:
    """这台设备上 bf16 矩阵乘法是否明显快过 fp32：支持 bf16 的 CUDA 显卡，或带 AMX 指令的 Intel CPU。"""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    amx = getattr(torch.cpu, "_is_amx_tile_supported", None)  # torch 的内部函数，旧版本没有就当不支持
    return bool(amx and amx())


def resolve_precision(name: str, device: torch.device) -> str:
    """auto → 见 :func:`fast_bf16`；fp32、bf16 原样返回。Raises: ValueError（不认识的名字）。"""
    if name not in PRECISIONS:
        raise ValueError(f"不认识的精度 {name!r}，可选：{'、'.join(PRECISIONS)}")
    if name == "auto":
        return "bf16" if fast_bf16(device) else "fp32"
    return name


@dataclass
class Workers:
    """一起训练的进程：world 个里的第 rank 个，用 device。单进程时 world = 1、rank = 0，各方法什么也不做。"""

    world: int
    rank: int
    device: torch.device

    @classmethod
    def start(cls, device: torch.device) -> Workers:
        """读 torchrun 设的环境变量（WORLD_SIZE、RANK、LOCAL_RANK）；多进程时建好进程组，CUDA 上每个进程用一张卡。"""
        import torch.distributed as dist

        world, rank = int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("RANK", "0"))
        if world > 1 and not dist.is_initialized():
            if device.type == "cuda":
                device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
                torch.cuda.set_device(device)
            dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
        return cls(world, rank, device)

    def all_reduce(self, t: torch.Tensor, op: str = "sum") -> torch.Tensor:
        """各进程的 t 就地换成所有进程的合计（op="sum"）或最小值（op="min"），返回 t。"""
        if self.world > 1:
            import torch.distributed as dist

            dist.all_reduce(t, op=dist.ReduceOp.MIN if op == "min" else dist.ReduceOp.SUM)
        return t

    def loss_function(
        self, model: torch.nn.Module, precision: str
    ) -> Callable[[torch.nn.Module, Sequence[Sequence[int]]], torch.Tensor]:
        """``train_step`` 用来算一批损失的函数。单进程、fp32 时就是 :func:`poetry_gpt.loss.batch_loss`。

        bf16 时前向在 ``torch.autocast`` 里算（第 17 课）。多进程时每个进程只算这一批里属于自己的一份
        （``batch[rank::world]``），经 DistributedDataParallel 前向，反向时各进程的梯度自动平均；返回的是本进程
        这一份的平均损失，它的梯度却按计分的字数加权，所以平均下来与单进程算整批相同。
        """
        if self.world == 1 and precision == "fp32":
            return batch_loss
        scored = self.wrap(ScoredLoss(model))

        def loss_fn(_model: torch.nn.Module, batch: Sequence[Sequence[int]]) -> torch.Tensor:  # 模型已在 scored 里
            ids, targets, mask = (t.to(self.device) for t in make_batch(batch[self.rank :: self.world]))
            n_mine = mask.sum()
            n_all = self.all_reduce(n_mine.clone())
            with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=precision == "bf16"):
                loss = scored(ids, targets, mask)
            # 各进程的平均损失按字数加权：DDP 再对进程取平均后，恰好是整批的平均（单进程时权重是 1）
            loss.register_hook(lambda grad: grad * (n_mine * self.world / n_all))
            return loss

        return loss_fn

    def wrap(self, module: torch.nn.Module) -> torch.nn.Module:
        """多进程时包进 DistributedDataParallel：反向时各进程的梯度自动平均。"""
        if self.world == 1:
            return module
        from torch.nn.parallel import DistributedDataParallel

        return DistributedDataParallel(module, device_ids=[self.device.index] if self.device.type == "cuda" else None)

    def barrier(self) -> None:
        if self.world > 1:
            import torch.distributed as dist

            dist.barrier()
