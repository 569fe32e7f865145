"""采样的设置（第 21 课）：默认的温度、top-k、top-p，以及它们的合法范围。

不导入 torch：``./poet`` 解析参数时就要用这些默认值，而不必等 torch 载入。
"""
from __future__ import annotations

from dataclasses import dataclass

MAX_SEED = 2**63
"""种子的上限（不含）。-n 写多首时依次用 seed、seed + 1……，超过上限就从 0 接着数。"""
MIN_TEMPERATURE = 0.01
"""大于 0 时温度的下限（课程自己定的）：温度 0.01 时分数只差 0.1 的两个字，概率就差 e^10 ≈ 2.2 万倍，
再小的温度与贪心（温度 0）几乎没有分别。这不是数值上的限制：logits 除以 0.001 也只是几万，远不会溢出。"""
TOO_COLD = f"小于 {MIN_TEMPERATURE} 的温度写出来与每步取最可能的字几乎没有分别，要这样就给 0"
"""0 与 MIN_TEMPERATURE 之间的温度为什么不收（./poet write 与 generate.write_poems 的错误信息共用）。"""


def negative_temperature(shown) -> str:
    """负温度的错误信息（./poet write 与 generate.write_poems 共用）；shown 是收到的值。"""
    return f"温度不能是负数：0 表示每步取最可能的字，其余要不小于 {MIN_TEMPERATURE}，收到 {shown}"


@dataclass(frozen=True)
class SamplingConfig:
    """采样的默认设置（第 21 课）：``./poet write``、``./poet eval``、训练时的示例诗与各课实验都用这一份。

    Attributes:
        temperature: 温度；0 表示每步取最可能的字（贪心）。
        top_k: 只在分数最高的 k 个字里抽；None 或 0 表示不限。
        top_p: 只在累计概率达到 p 的最少几个字里抽；None 或 1 表示不限。
    """

    temperature: float = 0.8
    top_k: int | None = 40
    top_p: float | None = 0.95


SAMPLING = SamplingConfig()
"""全课的默认采样设置。"""
