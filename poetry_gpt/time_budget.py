"""``./poet train --minutes``：按时间排定总步数（第 16 课）。

余弦衰减要事先知道总步数，可只给了分钟数时，步数取决于这台机器一步要多久。所以先正常走几步、量出每步用时，
再把总步数定成剩下的时间走得完的步数；之后每次验证完按到那时的平均用时重排一次。这里只有钟表与算术，
不碰模型：:class:`MinutesPlanner` 拿到的时刻由调用的人给（训练循环给 ``time.monotonic()``，测试给编好的数）。
"""

from __future__ import annotations

from dataclasses import dataclass

PLAN_SKIP = 2
"""前 2 步要分配内存、预热缓存，比后面的步慢，不计时。"""
PLAN_AT = 8
"""量第 2–7 步的平均用时，在第 8 步之前排定总步数（之后每次验证完再排一次）。两个预设的预热都长于 8 步，
这几步的学习率只看预热（lr × (step + 1) / warmup），与总步数无关，所以先走后排不改变它们。"""


def planned_steps(step: int, seconds_per_step: float, seconds_left: float) -> int:
    """总步数：已走完 step 步、每步约 seconds_per_step 秒、离截止还有 seconds_left 秒时，
    余弦衰减排到第几步结束。至少再走一步（时间已经用完时也是）。

    例：第 8 步时量得每步 0.25 秒、还剩 298 秒 → 8 + 1192 = 1200 步。
    """
    return step + max(1, int(seconds_left / seconds_per_step))


@dataclass
class MinutesPlanner:
    """``--minutes`` 的日程：训练循环在每一步开始之前（从第 0 步起，每步都）调用 :meth:`replan`。

    Attributes:
        minutes: 给的分钟数；started: 开始训练的时刻（秒，与 replan 的 now 用同一个钟）。
        eval_every: 每隔这么多步验证一次，也在这些步上重排。
        once: 只在第 PLAN_AT 步排一次，之后不再重排（分几次训练完时：总步数第一次就定下，存进存档，以后每次照它走）。
    """

    minutes: float
    started: float
    eval_every: int
    once: bool = False
    _timed_from: float | None = None

    def replan(self, step: int, now: float) -> tuple[float, int] | None:
        """第 step 步开始之前、时刻 now（秒）：该排日程时返回 (平均每步秒数, 排定的总步数)，否则 None。

        第 PLAN_SKIP 步记下起点；第 PLAN_AT 步、之后每个 eval_every 的倍数按从起点到 now 的平均用时
        （连验证与存档）排一次，机器中途变忙或变闲时日程跟着改。例：minutes=5、started=0，第 2 步时
        now=1.0、第 8 步时 now=2.5 → (0.25, 8 + int(297.5 / 0.25)) = (0.25, 1198)。
        """
        if step == PLAN_SKIP:
            self._timed_from = now
        if step == PLAN_AT or (not self.once and step > PLAN_AT and step % self.eval_every == 0):
            per_step = (now - self._timed_from) / (step - PLAN_SKIP)
            return per_step, planned_steps(step, per_step, self.started + self.minutes * 60 - now)
        return None

    def describe(self, step: int, per_step: float, steps: int, warmup: int) -> str:
        """排定之后留在进度条上方的一句话；排定的步数比预热还短时提醒多给些分钟。"""
        again = "重新" if step > PLAN_AT else ""
        text = (
            f"第 {PLAN_SKIP}–{step - 1} 步平均每步 {per_step:.3f} 秒，{self.minutes:g} 分钟{again}排定 {steps} 步："
            f"学习率的余弦在第 {steps} 步降到最低值"
        )
        if steps <= warmup:
            text += f"；可这比预热的 {warmup} 步还短，学习率来不及降下来，请给更多分钟"
        return text
