"""最简单的语言模型：二元统计（第 07 课）。

二元模型只看前一个编号来猜下一个编号：P(下一个 = j | 前一个 = i) 由训练集里“i 后面紧跟 j”
的次数算出，再加 k 平滑，让没见过的搭配也有一点概率::

    P(j | i) = (c[i, j] + k) / (n[i] + k · V)      n[i] = Σ_j c[i, j]，V = 汉字表大小

它和 PoetryGPT 用同一套编号（汉字表）、同一种样本排布（encode_sample）、同一批计入损失的目标
（loss_mask_for：正文的字、标点与 <eos>），所以它的交叉熵就是以后每个模型都要比较的基线。

计数表不存成 V×V 的稠密矩阵（V = 6672 时 float32 要 178 MB，绝大多数格子是 0），
只存出现过的 (i, j) 对：排好序的键 i·V + j 与对应次数，查表用二分查找。
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from .data import (
    BOS,
    EOS,
    FORMS,
    PAD,
    SEP,
    UNK,
    Tokenizer,
    condition_ids,
    default_tokenizer,
    encode_sample,
    form_of,
    load_poems,
    loss_mask_for,
)

DEFAULT_K = 0.03
"""默认的加 k 平滑量。在 val 上试过 k = 0.001、0.003、0.01、0.03、0.1、0.3、1（第 07 课实验里那张表），
0.03 的交叉熵最低：5.627 奈特/字（0.01 时 5.668，0.1 时 5.690）。"""

# 采样时不允许出现的编号：条件区才用的标记、补齐和表外字
_NEVER_SAMPLED = (PAD, UNK, BOS, SEP, *(f.token for f in FORMS))


def scored_pairs(poems: Sequence[dict], tokenizer: Tokenizer) -> tuple[torch.Tensor, torch.Tensor]:
    """每首诗里计入损失的 (前一个编号, 目标编号) 对，全部连在一起。

    用 encode_sample 排布、loss_mask_for 选目标，与训练 GPT 时完全相同。关键词只在条件区里，
    条件区的目标不计入损失；跨过边界的只有 (<sep>, 正文第一个字) 这一对，与关键词无关。
    所以这里传 keywords=()，省下给每首诗挑关键词的时间，得到的对一模一样。

    Returns:
        (prev, target)：形状都是 [N] 的 long 张量，N 是这些诗里计入损失的目标总数。
    """
    # 所有样本首尾相接成一长串；scored[i] 说 (flat[i], flat[i+1]) 这一对是否计入损失。
    # 一条样本的最后一个编号与下一条的第一个编号不是真的相邻，那一格补 False。
    flat: list[int] = []
    scored: list[bool] = []
    for record in poems:
        ids = encode_sample(record, tokenizer, keywords=())
        flat.extend(ids)
        scored.extend(loss_mask_for(ids))  # 与 ids[1:] 对齐
        scored.append(False)
    flat_t = torch.tensor(flat, dtype=torch.long)
    keep = torch.tensor(scored[:-1], dtype=torch.bool)
    return flat_t[:-1][keep], flat_t[1:][keep]


class BigramModel:
    """计数得来的二元模型：P(j | i) = (c[i, j] + k) / (n[i] + k·V)。

    Attributes:
        tokenizer: 汉字表（编号与 PoetryGPT 相同）。
        k: 加 k 平滑量（> 0）。
        keys: [P] long，出现过的对的键 i·V + j，升序。
        counts: [P] float32，每个键出现的次数。
        row_totals: [V] float32，n[i]：以 i 开头的对的总数。
    """

    def __init__(self, tokenizer: Tokenizer, keys: torch.Tensor, counts: torch.Tensor, k: float = DEFAULT_K):
        if not k > 0:
            raise ValueError(f"平滑量 k 必须大于 0（k = 0 时没见过的搭配概率为 0，交叉熵变成无穷大），收到 {k}")
        self.tokenizer = tokenizer
        self.k = float(k)
        self.keys = keys
        self.counts = counts
        V = len(tokenizer)
        self.row_totals = torch.zeros(V).index_add_(0, keys // V, counts)

    @classmethod
    def fit(cls, poems: Sequence[dict], tokenizer: Tokenizer | None = None, k: float = DEFAULT_K) -> BigramModel:
        """在一组诗（通常是 train）上数出每一对 (前一个, 目标) 的次数。

        只数计入损失的对（见 :func:`scored_pairs`）；torch.unique 对键 i·V + j 排序计数，
        不建 V×V 的表。89485 首训练诗约 283 万对，两核上一两秒。

        Raises:
            ValueError: k ≤ 0。
        """
        tok = tokenizer or default_tokenizer()
        prev, target = scored_pairs(poems, tok)
        keys, counts = torch.unique(prev * len(tok) + target, sorted=True, return_counts=True)
        return cls(tok, keys, counts.float(), k)

    def with_k(self, k: float) -> BigramModel:
        """同一份计数、换一个平滑量（挑 k 时不必重数）。"""
        return BigramModel(self.tokenizer, self.keys, self.counts, k)

    def pair_counts(self, prev: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """c[prev, target]：逐个查出训练集里这些对出现的次数（没见过的为 0）。形状同 prev，float32。"""
        query = prev * len(self.tokenizer) + target
        at = torch.searchsorted(self.keys, query).clamp(max=max(len(self.keys) - 1, 0))
        found = self.keys[at] == query
        return torch.where(found, self.counts[at], torch.zeros(()))

    def probability(self, prev: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """P(target | prev)，逐个计算。prev、target：同形状的 long 张量；返回同形状的 float32。"""
        V = len(self.tokenizer)
        return (self.pair_counts(prev, target) + self.k) / (self.row_totals[prev] + self.k * V)

    def next_distribution(self, prev: int) -> torch.Tensor:
        """前一个编号为 prev 时，下一个编号的完整分布：[V] float32，和为 1。"""
        V = len(self.tokenizer)
        row = torch.full((V,), self.k)
        lo, hi = torch.searchsorted(self.keys, torch.tensor([prev * V, (prev + 1) * V])).tolist()
        row[self.keys[lo:hi] - prev * V] += self.counts[lo:hi]
        return row / row.sum()

    def cross_entropy(self, poems: Sequence[dict] | str) -> float:
        """平均交叉熵，单位：奈特/字（nats per character）。

        对每首诗里计入损失的每个目标（正文的字、标点与 <eos>，与 GPT 的损失掩码相同），
        取 -ln P(目标 | 前一个编号)，再对全部目标求平均。e 的这个次方就是困惑度。

        Args:
            poems: 诗的列表，或 "train" / "val" / "test"。
        """
        if isinstance(poems, str):
            poems = load_poems(poems)
        return self.pairs_cross_entropy(*scored_pairs(poems, self.tokenizer))

    def pairs_cross_entropy(self, prev: torch.Tensor, target: torch.Tensor) -> float:
        """已经取好的 [N] 个 (前一个, 目标) 对上的平均 -ln P，奈特/字。比较多个 k 时只需取一次对。

        Raises:
            ValueError: N = 0。
        """
        if len(prev) == 0:
            raise ValueError("没有可以计算交叉熵的目标")
        return -self.probability(prev, target).double().log().mean().item()

    def sample(
        self,
        form: str = "七言绝句",
        keywords: str = "",
        generator: torch.Generator | None = None,
        max_new_tokens: int = 40,
    ) -> str:
        """按二元概率逐字抽样一首“诗”，返回正文（带标点，不含特殊标记）。

        从条件区 ``<bos> <form> 关键词… <sep>`` 开始，每一步只看最后一个编号抽下一个，
        直到抽到 <eos> 或写满 ``max_new_tokens`` 个。二元模型只记得前一个字，
        所以体裁与关键词几乎管不住它：这正是后面要用 GPT 的原因。
        """
        ids = condition_ids(form_of(name=form), keywords, self.tokenizer)
        for _ in range(max_new_tokens):
            p = self.next_distribution(ids[-1])
            p[list(_NEVER_SAMPLED)] = 0.0
            nxt = int(torch.multinomial(p, 1, generator=generator))
            if nxt == EOS:
                break
            ids.append(nxt)
        return self.tokenizer.decode(ids[ids.index(SEP) + 1 :])


def bigram_baseline(split: str = "val", k: float = DEFAULT_K) -> float:
    """二元基线：在 train 上计数、平滑量 k，在 ``split`` 上的交叉熵（奈特/字）。"""
    return BigramModel.fit(load_poems("train"), default_tokenizer(), k).cross_entropy(split)


def uniform_cross_entropy(tokenizer: Tokenizer | None = None) -> float:
    """什么都不学、每个编号等概率时的交叉熵 ln V（奈特/字）：任何模型都该比它低。"""
    return math.log(len(tokenizer or default_tokenizer()))
