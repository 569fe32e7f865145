"""从模型内部取出课上要看的中间量。

课程实验把它们打印出来，课程网站的图（courseware/site/charts/）把同样的数画出来，
两边调用同一个函数，图和终端里的数就不会对不上。
"""

from __future__ import annotations

import torch

from .model import KVCache, PoetryGPT


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


def previous_position_weight(weights: torch.Tensor, start: int) -> torch.Tensor:
    """每个头有多爱看“上一个位置”（第 10 课挑头的办法）：正文第 t 行给上一个位置的权重，在各行上取平均。

    Args:
        weights: [..., 行数, 列数] 的注意力权重（如 :func:`attention_weights` 的 ``[0, :, start:]``，[H, 句长, 列数]），
            第 t 行是第 start + t 个位置，列是它能看到的全部位置。
        start: 第 0 行在整条序列里的位置，至少为 1（第 0 个位置没有上一个位置）。
    Returns:
        [...]（如 [H]）：第 t 行第 start + t - 1 列的权重，在各行上的平均。
    Raises:
        ValueError: start 小于 1。
    """
    if start < 1:
        raise ValueError(f"第 0 行在位置 {start}：它前面没有上一个位置，start 至少是 1")
    return weights.diagonal(offset=start - 1, dim1=-2, dim2=-1).mean(-1)


@torch.no_grad()
def next_token_logits(model: PoetryGPT, prompt: list[int], tokens: list[int]) -> torch.Tensor:
    """沿着一首诗逐格读出模型给下一个编号的打分：先读条件区 prompt，再把 tokens 一个一个读进去
    （KV 缓存，与写诗时的调用相同：第 22、23 课看掩码之前模型本来给每一格多少概率）。

    Args:
        prompt: 条件区的编号，如 ``[BOS, FIVE, 月, SEP]``，不能为空。
        tokens: 之后逐个读入的编号，如诗的正文。
    Returns:
        [len(tokens) + 1, V] 的 logits（softmax 之前）：第 i 行是读完 prompt 与 tokens[:i] 之后的打分，
        也就是模型在 tokens[i] 那一格的打分；最后一行是读完全部 tokens 之后的（下一格，如 <eos>）。
    Raises:
        ValueError: prompt 为空，或 len(prompt) + len(tokens) 超过 context_length。
    """
    if not prompt:
        raise ValueError("条件区 prompt 是空的：至少要有一个编号（如 <bos>）模型才有得读")
    if len(prompt) + len(tokens) > model.config.context_length:
        raise ValueError(
            f"条件区与正文共 {len(prompt) + len(tokens)} 个位置，超过了前文长度 "
            f"context_length={model.config.context_length}"
        )
    cache = KVCache(model.config.n_layers)
    rows = [model(torch.tensor([prompt]), kv_cache=cache)[0][0, -1]]  # [V]
    for token in tokens:
        rows.append(model(torch.tensor([[token]]), kv_cache=cache)[0][0, -1])  # 只送新的一个编号
    return torch.stack(rows)
