"""bench/ 的 GPT-2 式（nanoGPT 式）参考训练：train_speed.py 与 time_to_quality.py 共用这一份。

和本项目只差在数据的排布与训练步的写法上，模型本身（PoetryGPT 的 Block、weight tying、可学习的位置表）、
宽度、层数、头数、优化器的超参数都相同：

- 数据：把诗的正文（带标点）与 <eos> 首尾相接成一长串，切成固定的 64 字一段（nanoGPT 的 shakespeare_char
  做法）；每步随机取 batch_size 段，段内每个位置都算 logits 和损失。
- 训练步：逐步写出的注意力（fast_attention=False）、整块算出 logits [B, T, V] 再交叉熵、
  不融合的 AdamW（foreach=False）；精度默认 fp32。

参考：Karpathy, nanoGPT（model.py、train.py 的 get_batch 与 configure_optimizers）；
Radford et al., "Language Models are Unsupervised Multitask Learners" (GPT-2), 2019。
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from poetry_gpt.data import EOS, Tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.train_config import TrainConfig

BLOCK = 64
"""参考的一段有多少字：输入 64 个编号、预测后 64 个。"""


def body_stream(poems: Sequence[dict], tokenizer: Tokenizer) -> torch.Tensor:
    """诗的正文（带标点）与 <eos> 首尾相接：[N] long。与 encode_sample 里 <sep> 之后的部分逐字相同。"""
    return torch.tensor([t for p in poems for t in tokenizer.encode(p["text"]) + [EOS]])


def reference_model(config: TrainConfig, vocab_size: int) -> PoetryGPT:
    """与 config.model 同宽、同层数、同头数的 PoetryGPT，前文长度 BLOCK，注意力逐步写出。"""
    return PoetryGPT(
        ModelConfig(vocab_size=vocab_size, **{**config.model, "context_length": BLOCK, "fast_attention": False})
    )


def reference_optimizer(model: PoetryGPT, config: TrainConfig) -> torch.optim.AdamW:
    """nanoGPT 的 configure_optimizers：矩阵做权重衰减，偏置与 LayerNorm 不做，betas (0.9, 0.95)——
    与本项目的 make_optimizer 相同，只是不融合、逐个张量更新（foreach=False）。"""
    groups = [
        {"params": [p for p in model.parameters() if p.dim() >= 2], "weight_decay": config.weight_decay},
        {"params": [p for p in model.parameters() if p.dim() < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=config.lr, betas=(0.9, 0.95), foreach=False)


def reference_batch(stream: torch.Tensor, step: int, batch_size: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """第 step 步的一批：从 stream 切好的 64 字段里随机取 batch_size 段（只由 seed 与 step 决定）。

    Returns:
        (x, y)：都是 [batch_size, BLOCK] long，y 是 x 往后错一个字。
    """
    n_blocks = (len(stream) - 1) // BLOCK
    starts = torch.randint(0, n_blocks, (batch_size,), generator=torch.Generator().manual_seed(seed * 100003 + step))
    chunk = torch.stack([stream[s : s + BLOCK + 1] for s in (starts * BLOCK).tolist()])
    return chunk[:, :-1], chunk[:, 1:]


def reference_step(
    model: PoetryGPT,
    optimizer: torch.optim.Optimizer,
    x: torch.Tensor,
    y: torch.Tensor,
    grad_clip: float,
    precision: str = "fp32",
) -> float:
    """一步：整块 logits 上的交叉熵（每个位置都计分）→ 反向 → 梯度裁剪 → AdamW。返回这步的损失（奈特/字）。

    precision 为 ``"bf16"`` 时前向与反向在 bfloat16 自动混合精度里算（与本项目的 bf16 相同），否则 fp32。
    """
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
        _, loss = model(x, y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.item()
