"""诗律解码的设置（第 24 课）：押韵、平仄、重复控制开不开，条件区放几个字。

不导入 torch：``./poet`` 解析参数时就要用这些默认值与选项（同 sampling.py）。规则本身在 verse.py。
"""
from __future__ import annotations

from dataclasses import dataclass

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
        seen_condition: 条件区只放模型见过的 1–3 个字（见 verse.condition），其余的字靠解码保证。
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
