"""采样（第 21 课）：温度与 top-k / top-p 截断，从一行 logits 里抽下一个字。

默认值与合法范围在 settings.py（不导入 torch，``./poet`` 解析参数时就要用）；这里的 :class:`SamplingConfig`
把三个旋钮装在一起，建的时候按同样的范围检查一次。
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .settings import MIN_TOP_K, TEMPERATURE, TOP_K, TOP_P, TOP_P_RANGE, temperature_problem


@dataclass(frozen=True)
class SamplingConfig:
    """一次采样的设置：``./poet write``、``./poet eval``、训练时的示例诗与各课实验都用它。

    Attributes:
        temperature: 温度；0 表示每步取最可能的字（贪心），其余在 [settings.MIN_TEMPERATURE, settings.MAX_TEMPERATURE] 内。
        top_k: 只在分数最高的 k 个字里抽；None 或 0 表示不限。
        top_p: 只在累计概率达到 p 的最少几个字里抽，0 < p ≤ 1；None 或 1 表示不限。

    Raises:
        ValueError: 某个值超出范围（温度不是有限数、太小、太大或为负；top-k 为负；top-p 不在 (0, 1] 内）。
    """

    temperature: float = TEMPERATURE
    top_k: int | None = TOP_K
    top_p: float | None = TOP_P

    def __post_init__(self):
        problem = temperature_problem(self.temperature)
        if problem:
            raise ValueError(f"temperature {problem}")
        low, high = TOP_P_RANGE
        if self.top_p is not None and not low < self.top_p <= high:  # nan 与 inf 也在这里被拒
            raise ValueError(f"top-p 要在 {low:g} 与 {high:g} 之间（可以等于 {high:g}），收到 {self.top_p}")
        if self.top_k is not None and self.top_k < MIN_TOP_K:
            raise ValueError(f"top-k 不能小于 {MIN_TOP_K}，收到 {self.top_k}")

    @property
    def greedy(self) -> bool:
        """每步都取最可能的字（温度 0 或 top-k 为 1）：同一个输入每次写出同一首诗。"""
        return self.temperature == 0 or self.top_k == 1


SAMPLING = SamplingConfig()
"""全课的默认采样设置。"""


def filter_logits(logits: torch.Tensor, top_k: int | None = None, top_p: float | None = None) -> torch.Tensor:
    """top-k 与 top-p（nucleus）截断（第 21 课）：不在候选里的 logits 设为 -inf。

    Args:
        logits: [V] 或 [B, V]。
        top_k: 只留分数最高的 k 个（None 或 0 表示不截）；与第 k 大的分数相等的并列字都留下，
            所以留下的可能多于 k 个。
        top_p: 在 top-k 剩下的字里，按分数从高到低（分数相等时编号小的在前）排好，排在一个字前面的
            概率之和已经 ≥ p 时丢掉它（None 或 ≥1 表示不截）；0 < p 时第一个总会留下。
            参见 Holtzman et al., "The Curious Case of Neural Text Degeneration", 2020。

    Returns:
        与 logits 同形状的新张量。
    """
    logits = logits.clone()
    if top_k:
        k = min(top_k, logits.shape[-1])
        kth = torch.topk(logits, k, dim=-1).values[..., -1:]
        logits[logits < kth] = float("-inf")
    if top_p is not None and top_p < 1.0:
        # stable：分数相等的字按编号从小到大排，并列字跨过 p 的边界时留下哪个是确定的
        sorted_logits, order = torch.sort(logits, dim=-1, descending=True, stable=True)
        probs = torch.softmax(sorted_logits, dim=-1)
        before = torch.cumsum(probs, dim=-1) - probs  # 排在它前面的概率之和
        drop = before >= top_p
        logits.scatter_(-1, order, sorted_logits.masked_fill(drop, float("-inf")))
    return logits


def sample_next(
    logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float | None, generator: torch.Generator
) -> int:
    """从一行 logits [V] 里抽一个编号；temperature 为 0 时取分数最高的（贪心）。"""
    if temperature <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(filter_logits(logits / temperature, top_k, top_p), dim=-1)
    return int(torch.multinomial(probs, 1, generator=generator))
