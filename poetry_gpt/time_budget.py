"""``./poet train --minutes``：按时间排定总步数（第 16 课）。

余弦衰减要事先知道总步数，可只给了分钟数时，步数取决于这台机器一步要多久。所以先正常走几步、量出每步用时，
再把总步数定成剩下的时间走得完的步数；之后按钟表每隔一小段时间（给的时间的 1/REPLANS）用最近的用时重排一次：
机器中途变忙，日程跟着缩短，训练照样在给的分钟数之内结束。验证与存档的时间另算（:meth:`MinutesPlanner.paused`），
剩下的验证也排进日程。这里只有钟表与算术，不碰模型：:class:`MinutesPlanner` 拿到的时刻由调用的人给
（训练循环给 ``time.monotonic()``，测试给编好的数）。
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

PLAN_SKIP = 2
"""前 2 步要分配内存、预热缓存，比后面的步慢，不计时。"""
PLAN_AT = 8
"""量第 2–7 步的平均用时，在第 8 步之前排定总步数。两个预设的预热都长于 8 步，
这几步的学习率只看预热（lr × (step + 1) / warmup），与总步数无关，所以先走后排不改变它们。"""
REPLANS = 50
"""排定之后每隔给的时间的 1/50 重排一次（10 分钟的训练每 12 秒一次）：机器变慢时，最多多走这么一小段才发觉。"""
WINDOW = 3
"""重排时的每步用时取最近 3 个重排间隔（约给的时间的 6%）的平均：够新，能跟上机器变忙；够长，不被一步的抖动带偏。"""
ANNOUNCE_CHANGE = 0.1
"""重排的步数与上一次说出来的相差一成以上，才在进度条上方再说一次；小的调整只改进度条的总数
（忙着的机器上每步用时忽快忽慢，每次都说，一分钟的训练就会刷出十来行）。"""
WARMUP_SHARE = 0.05
"""按时间排定时，预热取排定步数的 5%（不少于 WARMUP_FLOOR 步，不多于预设的预热）：只走得完一百多步的训练，
预设的 100 步预热会占去八成，学习率刚升上来就得降。"""
WARMUP_FLOOR = 10
VALIDATION_COST = 1 / 3
"""验证的一批只有前向，约为训练一步（前向、反向、更新）的三分之一：还没量到验证的用时之前，拿它估计。"""


class TooShort(ValueError):
    """按时间排定的步数太少（少于 TrainConfig.min_steps），不开始训练；消息说明怎么办。"""


def planned_steps(
    step: int, seconds_per_step: float, seconds_left: float, validation_s: float = 0.0, eval_every: int = 1
) -> int:
    """总步数：已走完 step 步、每步约 seconds_per_step 秒、离截止还有 seconds_left 秒时，余弦衰减排到第几步结束。
    每 eval_every 步有一次 validation_s 秒的验证（连存档），最后一步之后还有一次：都要在截止之前做完。
    至少再走一步（时间已经用完时也是）。

    例：第 8 步时量得每步 0.25 秒、还剩 298 秒、不计验证 → 8 + 1192 = 1200 步；
    每 200 步验证一次、一次 4 秒 → 8 + int((298 − 4) / (0.25 + 4/200)) = 8 + 1088 = 1096 步。
    """
    return step + max(1, int((seconds_left - validation_s) / (seconds_per_step + validation_s / eval_every)))


def scaled_warmup(steps: int, warmup: int) -> int:
    """按时间排定了 steps 步时的预热步数：steps 的 WARMUP_SHARE，不少于 WARMUP_FLOOR，不多于预设的 warmup。

    例：排定 121 步、预设预热 100 → 10；排定 1057 步 → 53；排定 4000 步 → 100。
    """
    return min(warmup, max(WARMUP_FLOOR, round(steps * WARMUP_SHARE)))


@dataclass
class MinutesPlanner:
    """``--minutes`` 的日程：训练循环在每一步开始之前（从第 0 步起，每步都）调用 :meth:`replan`，
    每次验证与存档之后调用 :meth:`paused` 告诉它这一段用了几秒。

    Attributes:
        minutes: 给的分钟数；started: 开始训练的时刻（秒，与 replan 的 now 用同一个钟）。
        eval_every: 每隔这么多步验证一次（连存档），排日程时算进去。
        validation_steps: 还没量到验证之前，估计一次验证抵得上几步训练（验证只有前向，约为一步的三分之一乘批数）。
        once: 只在第 PLAN_AT 步排一次，之后不再重排（分几次训练完时：总步数第一次就定下，存进存档，以后每次照它走）。
    """

    minutes: float
    started: float
    eval_every: int
    validation_steps: float = 0.0
    once: bool = False
    validation_s: float | None = None
    """最近一次验证（连存档）用了几秒；还没验证过时是 None。"""
    _paused: float = 0.0
    _marks: list[tuple[int, float]] = field(default_factory=list)
    _next_plan: float = math.inf
    _announced: int | None = None

    @property
    def deadline(self) -> float:
        return self.started + self.minutes * 60

    def paused(self, seconds: float) -> None:
        """一次验证与存档用了 seconds 秒：不算进每步用时，并记下一次验证要多久。"""
        self._paused += seconds
        self.validation_s = seconds

    def replan(self, step: int, now: float) -> tuple[float, int] | None:
        """第 step 步开始之前、时刻 now（秒）：该排日程时返回 (每步秒数, 排定的总步数)，否则 None。

        第 PLAN_SKIP 步记下起点；第 PLAN_AT 步按第 2–7 步的平均排定；之后（once 为假时）每隔 1/REPLANS 的时间，
        按最近 WINDOW 个间隔里每步的平均用时（不算验证与存档）重排。例：minutes=5、started=0，第 2 步时
        now=1.0、第 8 步时 now=2.5 → (0.25, 8 + int((297.5 − 0.5) / (0.25 + 0.5 / 200)))，
        其中一次验证估计为 validation_steps=2 步、0.5 秒。
        """
        clock = now - self._paused  # 只算训练的钟：去掉验证与存档
        if step == PLAN_SKIP:
            self._marks = [(step, clock)]
        due = step == PLAN_AT or (not self.once and step > PLAN_AT and now >= self._next_plan)
        if not due:
            return None
        self._next_plan = now + self.minutes * 60 / REPLANS
        self._marks.append((step, clock))
        first, then = self._marks[max(0, len(self._marks) - 1 - WINDOW)]
        per_step = (clock - then) / (step - first)
        validation = self.validation_s if self.validation_s is not None else per_step * self.validation_steps
        return per_step, planned_steps(step, per_step, self.deadline - now, validation, self.eval_every)

    def worth_saying(self, steps: int) -> bool:
        """排定 steps 步这件事要不要在进度条上方说出来：第一次排定要说，之后与上一次说的相差 ANNOUNCE_CHANGE 以上才说。"""
        if self._announced is not None and abs(steps - self._announced) < ANNOUNCE_CHANGE * self._announced:
            return False
        self._announced = steps
        return True

    def too_short(self, steps: int, per_step: float, min_steps: int) -> str | None:
        """排定的 steps 步少于 min_steps（学不到什么）时，是开始之前告诉学习者的中文说明；够了时为 None。"""
        if steps >= min_steps:
            return None
        needed = math.ceil(min_steps * per_step * 1.1 / 60)
        return (
            f"这台机器现在每步 {per_step:.2f} 秒，{self.minutes:g} 分钟只走得完 {steps} 步，"
            f"少于这个模型学会点东西要的 {min_steps} 步（验证损失要走到约 {min_steps} 步才低于二元基线），"
            f"训练完写出的仍是乱码，所以没有开始训练、没有写存档。可以：给更多时间（--minutes {needed} 左右）；"
            "换小一点的模型（--width 88 --n-layers 4，或 --preset tiny 先看看损失怎样下降）；"
            "关掉别的程序再试（机器忙时每步会慢好几倍）"
        )

    def describe(self, step: int, per_step: float, steps: int, warmup: int) -> str:
        """排定之后留在进度条上方的一句话；排定的步数比预热还短时提醒多给些分钟。"""
        again = "重新" if step > PLAN_AT else ""
        text = (
            f"第 {step} 步前每步约 {per_step:.3f} 秒，{self.minutes:g} 分钟{again}排定 {steps} 步"
            f"（预热 {warmup} 步）：学习率的余弦在第 {steps} 步降到最低值"
        )
        if steps <= warmup:
            text += f"；可这比预热的 {warmup} 步还短，学习率来不及降下来，请给更多分钟"
        return text
