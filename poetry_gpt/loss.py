"""输出层与交叉熵合在一起、分块计算（第 15 课：交叉熵只算在计分的位置上，也不在搬运数据上浪费时间）。

训练时一步大约有 N ≈ 2,000 个计分的位置，汉字表 V = 6,828：整块的 logits [N, V] 有 1,400 万个数，
放不进 CPU 的缓存。按常规写法，它要先整块写进内存，softmax 读写一遍，反向时再读写几遍——
这些来回搬运比输出层的矩阵乘法本身还慢。

这里每次只算 ``chunk_size`` 行：logits → softmax → 损失 → 立刻算出这几行对 hidden 和 weight 的梯度。
一块 logits 用完就被下一块覆盖，始终留在缓存里；反向传播时只需把前向里存好的梯度乘上传回来的系数。
数学上与 ``F.cross_entropy(hidden @ weight.T, targets)`` 完全相同（tests/test_model.py 验证）。

参考：Wijmans et al., "Cut Your Losses in Large-Vocabulary Language Models", 2024；
Hsu et al., "Liger Kernel: Efficient Triton Kernels for LLM Training", 2024（FusedLinearCrossEntropy）。
"""
from __future__ import annotations

import torch


def chunked_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor,
                          chunk_size: int = 512) -> torch.Tensor:
    """``F.cross_entropy(hidden @ weight.T, targets)``，但不整块算出 logits。

    Args:
        hidden: [N, C] 计分位置上的最终表示。
        weight: [V, C] 输出层的权重（weight tying 时就是 ``characters`` 那张表）。
        targets: [N] 每个位置的正确答案（字的编号）。
        chunk_size: 每块的行数；256 行的 fp32 logits 约 7 MB。

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
        # 缓冲区只分配一次、每块重复使用（每次新分配几 MB 的内存，光是缺页就比计算还慢）：
        # logits 与梯度用计算精度，probs 用 fp32
        # 要梯度时每块的梯度留在 grads 里，最后用一次大的矩阵乘法求 weight 的梯度
        grads = torch.empty(N if need_grad else rows, V, dtype=dtype, device=device)
        probs = torch.empty(rows, V, device=device)
        with torch.autocast(device.type, enabled=False):
            for start in range(0, N, chunk_size):
                h, t = h_all[start : start + chunk_size], targets[start : start + chunk_size]
                n = len(t)
                z = torch.matmul(h, w.T, out=grads[start : start + n] if need_grad else grads[:n])  # [n, V] 的 logits
                p = probs[:n].copy_(z)  # 换成 fp32 再做 softmax（混合精度的逐元素运算在 CPU 上慢得多）
                top = p.amax(dim=1, keepdim=True)  # 先减去每行最大值，exp 才不会溢出
                target_logit = p.gather(1, t[:, None])
                p.sub_(top).exp_()
                total = p.sum(dim=1, keepdim=True)
                # −log softmax(z)[t] = log Σ exp(z − top) + top − z[t]
                losses[start : start + n] = (total.log() + top - target_logit).squeeze(1)
                if need_grad:
                    p.div_(total)  # softmax
                    p[torch.arange(n, device=device), t] -= 1  # softmax − one-hot：对 logits 的梯度（还没除以 N）
                    g = z.copy_(p)  # 写回 logits 的缓冲区（计算精度）
                    torch.matmul(g, w, out=grad_hidden[start : start + n])  # [n, V] @ [V, C]
        if need_grad:
            grad_weight = (grads.T @ h_all).float()  # [V, N] @ [N, C]
            ctx.save_for_backward(grad_hidden, grad_weight)
        ctx.n, ctx.hidden_dtype = N, hidden.dtype
        return losses.mean()

    @staticmethod
    def backward(ctx, grad_loss):
        grad_hidden, grad_weight = ctx.saved_tensors
        scale = grad_loss / ctx.n  # 损失是 N 个位置的平均
        return grad_hidden.to(ctx.hidden_dtype) * scale, grad_weight * scale, None, None, None, None
