"""训练用的损失（第 15 课）：只在计分的位置上、把输出层与交叉熵合在一起分块计算。

``PoetryGPT.forward(ids, targets)`` 是教科书的写法：整块算出 logits [B, T, V]，再按 ignore_index 跳过
不计分的格子。训练步用这里的 :func:`scored_loss`：先取最后的表示 hidden，只挑出计分的位置
（正文与 <eos>，约占 84%），再交给 :func:`chunked_cross_entropy`。两者的损失相同（tests/lib/test_loss.py 验证），
后者更快、更省内存。训练的一步（poetry_gpt/train.py 的 ``train_step``）用 :func:`batch_loss`：一批编号序列排成张量，
再交给 :func:`scored_loss`。

训练时一步大约有 N ≈ 4,000 个计分的位置，汉字表 V = 6,672：logits [N, V] 有 2,700 万个数。按常规写法
（``F.cross_entropy(hidden @ weight.T, targets)``），它先整块写进内存，log softmax 再读写一遍整块，
反向时又要读写几遍——这些来回搬运比输出层的矩阵乘法本身还慢。

这里每次只算 ``chunk_size`` 行：logits → log softmax → 损失，并立刻算出这几行对 logits 的梯度
（softmax − one-hot）、对 hidden 和对 weight 的梯度。logits 与 softmax 都只用一块 ``chunk_size`` 行的缓冲区，
下一块覆盖上一块，始终留在缓存里，整块 [N, V] 从不存在。反向传播时只需把前向里算好的梯度乘上传回来的系数。
数学上与常规写法相同（tests/lib/test_loss.py 验证）。

参考：Wijmans et al., "Cut Your Losses in Large-Vocabulary Language Models", 2024；
Hsu et al., "Liger Kernel: Efficient Triton Kernels for LLM Training", 2024（FusedLinearCrossEntropy）。
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from .data import make_batch


def scored_loss(
    model: nn.Module, ids: torch.Tensor, targets: torch.Tensor, loss_mask: torch.Tensor, chunk_size: int = 512
) -> torch.Tensor:
    """训练步的损失：只在 loss_mask 为真的位置上算交叉熵（奈特/字，按计分的字数平均）。

    与 ``model(ids, targets.masked_fill(~loss_mask, IGNORE_INDEX))[1]`` 数值相同，但不整块算出 logits。

    Args:
        model: PoetryGPT（要有 ``hidden_states`` 与输出层 ``head``；输出层与字表共用一张表是模型自己的事）。
        ids, targets: [B, T] 输入编号与下一个字的编号。
        loss_mask: [B, T] bool，哪些目标计分（:func:`poetry_gpt.data.make_batch` 的第三项）。
    """
    hidden = model.hidden_states(ids)  # [B, T, C]
    return chunked_cross_entropy(hidden[loss_mask], model.head.weight, targets[loss_mask], chunk_size)


def batch_loss(model: nn.Module, batch: Sequence[Sequence[int]]) -> torch.Tensor:
    """一批样本（编号序列，排布见 ``data.encode_sample``）的平均损失：排成 [B, T]（:func:`poetry_gpt.data.make_batch`），
    放到模型所在的设备上，只在正文与 <eos> 上算（:func:`scored_loss`）。"""
    ids, targets, mask = (t.to(model.head.weight.device) for t in make_batch(batch))
    return scored_loss(model, ids, targets, mask)


@torch.no_grad()
def mean_cross_entropy(
    model: nn.Module,
    samples: list[list[int]],
    device: torch.device | str = "cpu",
    batch_size: int = 128,
    on_batch: Callable[[], None] | None = None,
) -> float:
    """在 samples 上的平均交叉熵（奈特/字，只算正文与 <eos>，按字数加权）。给了 on_batch 就每算完一批调用一次
    （./poet eval 的进度条）。"""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(samples), batch_size):
        x, y, mask = (t.to(device) for t in make_batch(samples[i : i + batch_size]))
        loss = scored_loss(model, x, y, mask)
        n = int(mask.sum())
        total += float(loss) * n
        count += n
        if on_batch:
            on_batch()
    model.train(was_training)
    return total / max(count, 1)


class ScoredLoss(nn.Module):
    """把 :func:`scored_loss` 包成一个模块：多进程训练时 DistributedDataParallel 要包住“算出损失的 forward”，
    梯度才会在反向时自动平均。参数就是 model 的参数。"""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, targets: torch.Tensor, loss_mask: torch.Tensor) -> torch.Tensor:
        return scored_loss(self.model, ids, targets, loss_mask)


def chunked_cross_entropy(
    hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, chunk_size: int = 512
) -> torch.Tensor:
    """``F.cross_entropy(hidden @ weight.T, targets)``，但不整块算出 logits。

    Args:
        hidden: [N, C] 计分位置上的最终表示。
        weight: [V, C] 输出层的权重（weight tying 时就是 ``characters`` 那张表）。
        targets: [N] 每个位置的正确答案（字的编号）。
        chunk_size: 每块的行数；512 行的 fp32 softmax 约 14 MB。

    Returns:
        标量：平均交叉熵（奈特/字）。在 ``torch.autocast`` 里调用时，矩阵乘法用 autocast 的精度
        （如 bfloat16），softmax 与损失仍用 fp32。
    """
    device = hidden.device.type
    dtype = torch.get_autocast_dtype(device) if torch.is_autocast_enabled(device) else hidden.dtype
    need_grad = torch.is_grad_enabled() and (hidden.requires_grad or weight.requires_grad)
    return _ChunkedCrossEntropy.apply(hidden, weight, targets, chunk_size, dtype, need_grad)


class _ChunkedCrossEntropy(torch.autograd.Function):
    """前向时顺便算好梯度（交叉熵对 logits 的梯度就是 softmax − one-hot），反向时只做缩放。"""

    @staticmethod
    def forward(ctx, hidden, weight, targets, chunk_size, dtype, need_grad):
        N, V = hidden.shape[0], weight.shape[0]
        h_all, w = hidden.to(dtype), weight.to(dtype)
        device, rows = hidden.device, min(chunk_size, N)
        losses = torch.empty(N, device=device)
        grad_hidden = torch.empty(hidden.shape, dtype=dtype, device=device) if need_grad else None
        grad_weight = torch.zeros(weight.shape, device=device) if need_grad else None  # fp32 里累加
        # 缓冲区只分配一次、每块重复使用（每块新分配几 MB 内存，光是缺页就比计算还慢）：
        # logits 用计算精度，probs 是 fp32 的 log softmax / softmax
        logits = torch.empty(rows, V, dtype=dtype, device=device)
        probs = torch.empty(rows, V, device=device)
        part = torch.empty(weight.shape, dtype=dtype, device=device) if dtype != torch.float32 else None
        with torch.autocast(device.type, enabled=False):
            for start in range(0, N, chunk_size):
                h, t = h_all[start : start + chunk_size], targets[start : start + chunk_size]
                n = len(t)
                z = torch.matmul(h, w.T, out=logits[:n])  # [n, V] 的 logits
                # 一个函数算完 log softmax（减最大值、exp、求和、取对数），结果用 fp32 写进 probs
                log_probs = torch.log_softmax(z, dim=1, dtype=torch.float32, out=probs[:n])
                losses[start : start + n] = -log_probs.gather(1, t[:, None]).squeeze(1)  # −log p(正确的字)
                if need_grad:
                    p = log_probs.exp_()  # softmax
                    p[torch.arange(n, device=device), t] -= 1  # softmax − one-hot：对 logits 的梯度（还没除以 N）
                    g = p if p.dtype == dtype else z.copy_(p)  # bf16 时梯度换回计算精度，覆盖这块 logits
                    torch.matmul(g, w, out=grad_hidden[start : start + n])  # [n, V] @ [V, C]
                    if part is None:  # fp32：直接累加进 grad_weight，不另写一块再相加
                        grad_weight.addmm_(g.T, h)  # += [V, n] @ [n, C]
                    else:  # bf16：乘法用 bf16，结果在 fp32 里累加
                        grad_weight += torch.matmul(g.T, h, out=part)
        if need_grad:
            ctx.save_for_backward(grad_hidden, grad_weight)
        ctx.n, ctx.hidden_dtype = N, hidden.dtype
        return losses.mean()

    @staticmethod
    def backward(ctx, grad_loss):
        grad_hidden, grad_weight = ctx.saved_tensors
        scale = grad_loss / ctx.n  # 损失是 N 个位置的平均
        return grad_hidden.to(ctx.hidden_dtype) * scale, grad_weight * scale, None, None, None, None
