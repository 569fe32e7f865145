"""PoetryGPT：一个只看前文的小型 Transformer（GPT）。

读这个文件的顺序就是第 08–14 课的顺序：
汉字表示表 ``characters``（08）→ 位置表 ``positions``（09）→ 单头因果注意力（10）→
多头（11）→ 前馈网络 MLP（12）→ 残差与层归一化组成的 Block（13）→ 整个模型与 logits（14）。

参考：Vaswani et al., "Attention Is All You Need", 2017；
Radford et al., "Language Models are Unsupervised Multitask Learners" (GPT-2), 2019。
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

IGNORE_INDEX = -100
"""targets 里等于它的格子不计入损失（条件区、补齐）：与 ``F.cross_entropy`` 的默认 ignore_index 相同。"""


@dataclass
class ModelConfig:
    """模型的全部尺寸。

    Attributes:
        vocab_size: 汉字表大小 V（含特殊标记）。
        context_length: 前文长度 L：一次调用最多处理多少个位置，也是位置表的行数。
        width: 表示宽度 C：每个位置的向量有多少个数。
        n_layers: Block 的层数。
        n_heads: 注意力头数 H；每个头宽 C/H。
        dropout: 训练时随机置零的比例（0 表示不用）。
        fast_attention: 为真时注意力改用 ``F.scaled_dot_product_attention``，结果与逐步写出的版本相同
            （tests/lib/test_model.py 验证），只是更快。
    """

    vocab_size: int
    context_length: int = 64
    width: int = 128
    n_layers: int = 4
    n_heads: int = 4
    dropout: float = 0.0
    fast_attention: bool = True

    def __post_init__(self):
        if self.width % self.n_heads:
            raise ValueError(f"width={self.width} 不能被 n_heads={self.n_heads} 整除")

    def to_dict(self) -> dict:
        return asdict(self)


class KVCache:
    """生成时记住每层已算过的 keys 与 values（第 20 课），新字只需算自己这一格。

    ``keys[i]``、``values[i]`` 是第 i 层的缓存，形状 [B, H, T_past, C/H]。
    """

    def __init__(self, n_layers: int):
        self.keys: list[torch.Tensor | None] = [None] * n_layers
        self.values: list[torch.Tensor | None] = [None] * n_layers

    def __len__(self) -> int:
        """已缓存的位置数 T_past。"""
        return 0 if self.keys[0] is None else self.keys[0].shape[2]

    def extend(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """把本次的 k、v（[B, H, T, D]）接到第 layer 层的缓存后面，返回接好的全部 keys、values。"""
        if self.keys[layer] is not None:
            k = torch.cat([self.keys[layer], k], dim=2)
            v = torch.cat([self.values[layer], v], dim=2)
        self.keys[layer], self.values[layer] = k, v
        return k, v


class CausalAttention(nn.Module):
    """多头因果自注意力：每个位置只汇总它自己和它之前的位置（第 10、11 课）。

    输入、输出都是 [B, T, C]。内部把 C 切成 H 个头：[B, T, C] → [B, H, T, C/H]，
    各头独立计算后再拼回 [B, T, C]，最后经过输出投影 ``proj``。
    """

    def __init__(self, config: ModelConfig, layer: int = 0):
        super().__init__()
        self.n_heads = config.n_heads
        self.head_width = config.width // config.n_heads
        self.layer = layer
        self.fast = config.fast_attention
        self.dropout = config.dropout
        self.qkv = nn.Linear(config.width, 3 * config.width)  # 一次算出 query、key、value
        self.proj = nn.Linear(config.width, config.width)
        self.drop = nn.Dropout(config.dropout)
        L = config.context_length
        # causal[i, j] 为真表示位置 i 可以看位置 j（j ≤ i）；不随训练变化，也不存进存档
        self.register_buffer("causal", torch.ones(L, L, dtype=torch.bool).tril(), persistent=False)

    def split_heads(self, t: torch.Tensor) -> torch.Tensor:
        """[B, T, C] → [B, H, T, C/H]"""
        B, T, C = t.shape
        return t.view(B, T, self.n_heads, self.head_width).transpose(1, 2)

    def merge_heads(self, t: torch.Tensor) -> torch.Tensor:
        """[B, H, T, C/H] → [B, T, C]"""
        B, H, T, D = t.shape
        return t.transpose(1, 2).reshape(B, T, H * D)

    def weights(self, q: torch.Tensor, k: torch.Tensor, past: int = 0) -> torch.Tensor:
        """注意力权重 [B, H, T, T_past+T]：分数 → 除以 √(C/H) → 遮住后文 → softmax。"""
        T, S = q.shape[2], k.shape[2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_width)
        allowed = self.causal[past : past + T, :S]
        scores = scores.masked_fill(~allowed, float("-inf"))
        return F.softmax(scores, dim=-1)

    def forward(self, x: torch.Tensor, kv_cache: KVCache | None = None) -> torch.Tensor:
        """x: [B, T, C] → [B, T, C]。给了 kv_cache 时，x 只含新位置，前文的 k、v 从缓存取。"""
        q, k, v = self.qkv(x).split(x.shape[-1], dim=2)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        if kv_cache is not None:
            k, v = kv_cache.extend(self.layer, k, v)  # 前文的 past 行接上新的 T 行
        T, S = q.shape[2], k.shape[2]
        past = S - T  # 缓存里的前文位置数；不用缓存时为 0
        if self.fast:
            mask = None if past == 0 else self.causal[past : past + T, :S]
            # bf16 自动混合精度里这一步也用 fp32 算：CPU 上 bf16 的 SDPA 前向加反向要多花约 4 倍时间
            # （bench/attention_precision.py）；fp32 训练时 .float() 什么也不做
            with torch.autocast(x.device.type, enabled=False):
                out = F.scaled_dot_product_attention(
                    q.float(),
                    k.float(),
                    v.float(),
                    attn_mask=mask,
                    is_causal=past == 0,
                    dropout_p=self.dropout if self.training else 0.0,
                )
        else:
            out = self.drop(self.weights(q, k, past)) @ v  # [B, H, T, C/H]
        return self.proj(self.merge_heads(out))


class MLP(nn.Module):
    """逐位置的前馈网络：C → 4C → GELU → C（第 12 课）。输入输出 [B, T, C]。"""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.up = nn.Linear(config.width, 4 * config.width)
        self.act = nn.GELU()
        self.down = nn.Linear(4 * config.width, config.width)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.down(self.act(self.up(x))))


class Block(nn.Module):
    """一层 Transformer（先归一化的 pre-norm 写法，第 13 课）::

        x = x + attention(norm1(x))
        x = x + mlp(norm2(x))

    残差让每层只需在“残差流”上加一点修改；LayerNorm 让每层看到的输入尺度稳定。输入输出 [B, T, C]。
    """

    def __init__(self, config: ModelConfig, layer: int = 0):
        super().__init__()
        self.norm1 = nn.LayerNorm(config.width)
        self.attention = CausalAttention(config, layer)
        self.norm2 = nn.LayerNorm(config.width)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor, kv_cache: KVCache | None = None) -> torch.Tensor:
        x = x + self.attention(self.norm1(x), kv_cache)
        return x + self.mlp(self.norm2(x))


class PoetryGPT(nn.Module):
    """整个模型（第 14 课）：编号 [B, T] → logits [B, T, V]。

    ``characters``（V×C）查出每个字的向量，加上 ``positions``（L×C）里对应位置的向量，
    经过 n_layers 个 Block 和最后的 LayerNorm，再乘回 ``characters`` 的转置得到每个位置上
    下一个字的分数 logits（weight tying：输入表与输出层共用一张表，参见 Press & Wolf, 2017）。
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.characters = nn.Embedding(config.vocab_size, config.width)
        self.positions = nn.Embedding(config.context_length, config.width)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config, i) for i in range(config.n_layers))
        self.norm = nn.LayerNorm(config.width)
        self.head = nn.Linear(config.width, config.vocab_size, bias=False)
        self.head.weight = self.characters.weight  # weight tying
        self.apply(self._init_weights)
        # 每个 Block 往残差流上加两次；把这两处输出层缩小，层数再多，流的尺度也不会越加越大（GPT-2）
        for block in self.blocks:
            for layer in (block.attention.proj, block.mlp.down):
                nn.init.normal_(layer.weight, std=0.02 / math.sqrt(2 * config.n_layers))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def num_parameters(self) -> int:
        """参数个数（共用的表只算一次）。"""
        return sum(p.numel() for p in self.parameters())

    def parameter_counts(self) -> dict[str, int]:
        """按部分数参数（第 14 课）：characters、positions、attention、mlp、norms（各层合计）。

        输出层 ``head`` 与 ``characters`` 是同一张表，不另算；各项之和等于 :meth:`num_parameters`。
        """
        counts = dict.fromkeys(("characters", "positions", "attention", "mlp", "norms"), 0)
        for name, p in self.named_parameters():  # 共用的表只出现一次，名字是先注册的 characters
            part = next((k for k in counts if k in name.split(".")), "norms")
            counts[part] += p.numel()
        return counts

    def embed(self, ids: torch.Tensor, past: int = 0) -> torch.Tensor:
        """编号 [B, T] → 第一个 Block 的输入 [B, T, C]：字向量加上位置 past … past+T-1 的位置向量（第 08、09 课）。

        :meth:`hidden_states` 与 :func:`poetry_gpt.probes.attention_weights` 都从这里开始，两边算的是同一个数。

        Raises:
            ValueError: past + T 超过 context_length。
        """
        T = ids.shape[1]
        if past + T > self.config.context_length:
            raise ValueError(
                f"输入有 {past + T} 个位置，超过了前文长度 context_length="
                f"{self.config.context_length}；位置表只有这么多行，模型不会悄悄截断"
            )
        positions = torch.arange(past, past + T, device=ids.device)
        return self.drop(self.characters(ids) + self.positions(positions))  # [B,T,C] + [T,C]

    def hidden_states(self, ids: torch.Tensor, kv_cache: KVCache | None = None) -> torch.Tensor:
        """编号 [B, T] → 最后一层归一化之后的表示 hidden [B, T, C]（输出层之前的一切）。

        训练步只在计分的位置上把它乘回输出层 ``head``（:func:`poetry_gpt.loss.scored_loss`，第 15 课）。

        Raises:
            ValueError: 位置数（含 kv_cache 里的前文）超过 context_length。
        """
        hidden = self.embed(ids, past=len(kv_cache) if kv_cache is not None else 0)
        for block in self.blocks:
            hidden = block(hidden, kv_cache)
        return self.norm(hidden)

    def forward(
        self, ids: torch.Tensor, targets: torch.Tensor | None = None, kv_cache: KVCache | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """编号 → 每个位置上下一个字的分数 logits，给了 targets 时再算交叉熵。

        Args:
            ids: [B, T] 字的编号。
            targets: [B, T] 每个位置下一个字的编号；等于 ``IGNORE_INDEX``（-100）的格子不计入损失
                （条件区与补齐的格子，见 :func:`poetry_gpt.data.make_batch`）。
            kv_cache: 逐字生成时用的 :class:`KVCache`（第 20 课）；这时 ids 只含新位置。

        Returns:
            (logits, loss)：logits [B, T, V]；loss 是计分格子上的平均交叉熵（奈特/字），没给 targets 时为 None。
        """
        logits = self.head(self.hidden_states(ids, kv_cache))
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=IGNORE_INDEX)
        return logits, loss


def sinusoidal_positions(length: int, width: int) -> torch.Tensor:
    """正弦位置表 [length, width]（Vaswani et al., 2017, §3.5），第 09 课拿它和可学习的位置表比较。

    第 2i 列是 sin(p / 10000^(2i/width))，第 2i+1 列是同一频率的 cos；没有可学习的参数。
    """
    position = torch.arange(length, dtype=torch.float32)[:, None]  # [L, 1]
    frequency = torch.pow(10000.0, -torch.arange(0, width, 2, dtype=torch.float32) / width)  # [C/2]
    table = torch.zeros(length, width)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table
