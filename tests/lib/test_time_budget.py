"""--minutes 的计时：按剩下的时间排定步数，第 2–7 步计时，每次验证之后重排。"""

import pytest

from poetry_gpt.time_budget import MinutesPlanner, planned_steps


def test_planned_steps_fill_the_time_left():
    assert planned_steps(8, 0.25, 298.0) == 1200  # 5 分钟、每步 0.25 秒：第 8 步时还剩 298 秒
    assert planned_steps(8, 0.4, 298.0) == 8 + 745  # 不足一步的零头不算
    assert planned_steps(8, 0.25, -3.0) == 9  # 时间已经用完也再走一步，好存下一个走完日程的存档


def test_minutes_planner_times_steps_2_to_7_then_replans_after_each_validation():
    """5 分钟、第 2 步在第 1 秒开始：第 8 步（第 2.5 秒）量得每步 0.25 秒 → 8 + 297.5 / 0.25 = 1198 步；
    第 200 步（第 60.4 秒，连验证与存档）量得每步 59.4 / 198 = 0.30 秒 → 重排成 200 + int(239.6 / 0.30) = 998 步。
    其余的步不排。"""
    planner = MinutesPlanner(minutes=5, started=0.0, eval_every=200)
    assert planner.replan(0, 0.0) is None and planner.replan(1, 0.5) is None
    assert planner.replan(2, 1.0) is None  # 只记下起点
    assert planner.replan(7, 2.25) is None
    assert planner.replan(8, 2.5) == (0.25, 1198)
    assert planner.replan(9, 2.75) is None and planner.replan(199, 60.0) is None
    per_step, steps = planner.replan(200, 60.4)
    assert per_step == pytest.approx(0.3) and steps == 998
    assert planner.describe(8, 0.25, 1198, warmup=100) == (
        "第 2–7 步平均每步 0.250 秒，5 分钟排定 1198 步：学习率的余弦在第 1198 步降到最低值"
    )
    assert planner.describe(200, 0.3, 80, warmup=100).startswith("第 2–199 步平均每步 0.300 秒，5 分钟重新排定 80 步")
    assert planner.describe(200, 0.3, 80, warmup=100).endswith("比预热的 100 步还短，学习率来不及降下来，请给更多分钟")
