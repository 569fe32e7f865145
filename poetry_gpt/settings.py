"""模型库的默认值与合法范围：采样、诗律解码、评估、训练的预设名与精度。

``./poet`` 的选项（默认值、可选项、范围）与模型库都读这一份，一个数只写在一处；课件自己的默认值
（检查练习的时间与内存、实验的线程数）在 courseware/defaults.py。
这里只用标准库（不导入 torch、numpy）：``./poet`` 解析参数时就要用这些值，而不必等 torch 载入
（``tests/lib/test_settings.py`` 检查这两点）。
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# ---------- 采样（第 21 课） ----------

TEMPERATURE = 0.8
"""默认温度；0 表示每步取最可能的字（贪心）。"""
TOP_K = 40
"""默认的 top-k：只在分数最高的 40 个字里抽。"""
TOP_P = 0.95
"""默认的 top-p：只在累计概率达到 0.95 的最少几个字里抽。"""
MIN_TOP_K = 0
"""top-k 的下限：0（或 None）表示不限。"""
TOP_P_RANGE = (0.0, 1.0)
"""top-p 的范围 (low, high]：不含 0，可以等于 1（1 或 None 表示不限）。"""
MAX_SEED = 2**63
"""种子的上限（不含）。-n 写多首时依次用 seed、seed + 1……，超过上限就从 0 接着数。"""
MIN_TEMPERATURE = 0.01
"""大于 0 时温度的下限（课程自己定的）：温度 0.01 时分数只差 0.1 的两个字，概率就差 e^10 ≈ 2.2 万倍，
再小的温度与贪心（温度 0）几乎没有分别。这不是数值上的限制：logits 除以 0.001 也只是几万，远不会溢出。"""
MAX_TEMPERATURE = 10.0
"""温度的上限：温度再高，每个字的概率都差不多，写出来只是乱码；太大的数除出来还会下溢成 NaN。"""
TOO_COLD = f"小于 {MIN_TEMPERATURE} 的温度写出来与每步取最可能的字几乎没有分别，要这样就给 0"
"""0 与 MIN_TEMPERATURE 之间的温度为什么不收。"""


def temperature_problem(value: float, shown: str | None = None) -> str | None:
    """温度哪里不合法：合法（有限，0 或在 [MIN_TEMPERATURE, MAX_TEMPERATURE] 内）时返回 None。

    ``./poet write --temperature`` 与 ``sampling.SamplingConfig`` 都用它，消息相同；
    shown 是消息里回显的写法（默认 value 本身）。
    """
    shown = value if shown is None else shown
    if not math.isfinite(value):
        return f"要是有限数，收到 {shown}"
    if value < 0:  # 负数另说：“小于 0.01 与贪心没分别”的解释对它不成立
        return f"温度不能是负数：0 表示每步取最可能的字，其余要不小于 {MIN_TEMPERATURE}，收到 {shown}"
    if not (value == 0 or MIN_TEMPERATURE <= value <= MAX_TEMPERATURE):
        return (
            f"要么是 0（每步取最可能的字），要么在 {MIN_TEMPERATURE} 到 {MAX_TEMPERATURE:g} 之间，收到 {shown}"
            f"（{TOO_COLD}；大于 {MAX_TEMPERATURE:g} 时每个字几乎一样可能，写出来是乱码）"
        )
    return None


# ---------- 先写几份，再挑一份（第 25 课；generate.write_drafts 与 rerank.py） ----------

DRAFTS = 1
"""./poet write 与 ./poet eval 每首诗默认写几份草稿、留下分数最高的一份；1 就是只写一份、不挑。
默认不挑：盲评里（data/MODEL.md“先写几份，再挑一份”）8 份草稿按每字平均对数概率留下的诗，两位读者都没有比只写一份的好
（2.30、2.30 对 2.45、2.50），挑草稿只是一个选项（--drafts 8，第 25 课讲为什么）。"""
MAX_DRAFTS = 64
"""--drafts 的上限：一批太大，每首诗要等很久。"""
SCORES = ("likelihood", "coherence")
"""挑草稿的分数（rerank.py）：likelihood 是模型自己给的平均对数概率，coherence 再加后两句与前两句的点互信息。"""
SCORE = SCORES[0]
"""默认的分数：盲评显示有用的才作默认（见 data/MODEL.md 的盲评）。"""

# ---------- 诗律解码（第 24 课；规则本身在 verse.py） ----------

STOCK_OPENINGS = ("不知", "不见", "自是", "唯有")
"""几个常见的句首套语：单看一句不算毛病，用得比人多就成了腔调（metrics.stock_opening_share 数它们，
verse.py 在句首第二格调低它们）。"""

TONE_MODES = ("strict", "lenient", "off")
"""平仄约束的三档：每字都论、一三五不论、不管。"""


@dataclass(frozen=True)
class Rules:
    """诗律解码的设置。

    Attributes:
        rhyme: 第二、四句（首句入韵时还有第一句）押韵，句尾不用同一个字。
        tones: 平仄约束：``"strict"``、``"lenient"`` 或 ``"off"``（见 :data:`TONE_MODES`）。
        repetition: 调低用过的字、不许用第三次、不许重复同一个两字组合。
        seen_condition: 条件区只放模型见过的 1–3 个字（见 data.condition），其余的字靠解码保证。

    Raises:
        ValueError: tones 不是 TONE_MODES 之一。
    """

    rhyme: bool = True
    tones: str = "lenient"
    repetition: bool = True
    seen_condition: bool = True

    def __post_init__(self):
        if self.tones not in TONE_MODES:
            raise ValueError(f"平仄约束只能是 {'、'.join(TONE_MODES)} 之一，收到 {self.tones!r}")


VERSE = Rules()
"""默认的诗律解码：``./poet write``、``./poet eval`` 都用它。"""
PLAIN = Rules(rhyme=False, tones="off", repetition=False, seen_condition=False)
"""只有格式约束（第 22、23 课的解码）：``./poet eval --plain`` 用它算“之前”的数字。"""

# ---------- 评估（./poet eval） ----------

EVAL_PROMPTS = 200
"""./poet eval 写诗用的固定提示个数（metrics.eval_prompts）。"""
DISTINCT_POEMS = 40
"""算 distinct-2 时每组取的首数：distinct-2 随首数增多而下降，只有首数相同的组才能相比。"""

# ---------- 训练 ----------

PRESET_NAMES = ("tiny", "base", "regulated")
"""train_config.PRESETS 的键（同样的次序）：./poet train --preset 的可选项。"""
PRECISIONS = ("auto", "fp32", "bf16")
"""矩阵乘法的精度（第一个是 TrainConfig 的默认值）：auto 在 bf16 更快的设备上用 bf16（devices.resolve_precision）。"""
DEVICES = ("auto", "cpu", "cuda")
"""在哪里训练（第一个是默认值）：auto 有 CUDA 用 CUDA，否则 CPU（devices.resolve_device）。"""
SCHEDULES = ("cosine", "wsd")
"""学习率日程（第一个是 TrainConfig 的默认值）：cosine 预热后余弦衰减；wsd 预热、持平、最后一段才衰减（train.learning_rate）。"""
OPTIMIZERS = ("adamw", "muon")
"""优化器（第一个是 TrainConfig 的默认值）：adamw 是第 16 课讲的；muon 只给隐藏层的矩阵换成正交化的动量（train.make_optimizer）。"""
