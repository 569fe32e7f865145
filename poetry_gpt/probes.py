"""从模型内部取出课上要看的中间量。

课程实验把它们打印出来，课程网站的图（courseware/charts/）把同样的数画出来，
两边调用同一个函数，图和终端里的数就不会对不上。
"""

from __future__ import annotations

import torch

from .model import PoetryGPT


@torch.no_grad()
def attention_weights(model: PoetryGPT, ids: torch.Tensor, layer: int = 0) -> torch.Tensor:
    """第 layer 层各头的注意力权重。

    与模型前向的算法相同：从 PoetryGPT.embed（字向量加位置向量）开始，逐层经过前面的 Block，
    到第 layer 层时先做 norm1，再算 q、k，用 CausalAttention.weights 得到遮挡 + softmax 后的权重。

    Args:
        ids: [B, T] 编号，T 不超过 context_length。
    Returns:
        [B, H, T, T]，每行和为 1，上三角（后文）为 0。
    Raises:
        IndexError: layer 超出层数。
        ValueError: T 超过 context_length（:meth:`PoetryGPT.embed`）。
    """
    x = model.embed(ids)  # [B, T, C]
    for block in model.blocks[:layer]:
        x = block(x)
    block = model.blocks[layer]
    att = block.attention
    q, k, _ = att.qkv(block.norm1(x)).split(x.shape[-1], dim=-1)  # 各 [B, T, C]
    return att.weights(att.split_heads(q), att.split_heads(k))
