"""--minutes 的计时：按剩下的时间排定步数（验证也排进去），第 2–7 步计时，之后按钟表重排；预热随步数缩放；
时间太短时不开始。机器中途变慢的几种走法用假钟模拟：训练都在给的时间的 5% 以内结束。"""

import pytest

from poetry_gpt.time_budget import MinutesPlanner, planned_steps, scaled_warmup


def test_planned_steps_fill_the_time_left():
    assert planned_steps(8, 0.25, 298.0) == 1200  # 5 分钟、每步 0.25 秒：第 8 步时还剩 298 秒
    assert planned_steps(8, 0.4, 298.0) == 8 + 745  # 不足一步的零头不算
    assert planned_steps(8, 0.25, -3.0) == 9  # 时间已经用完也再走一步，好存下一个走完日程的存档
    # 每 200 步验证一次、一次 4 秒，最后一步之后还有一次：(298 − 4) / (0.25 + 4/200) = 1088.9
    assert planned_steps(8, 0.25, 298.0, validation_s=4.0, eval_every=200) == 8 + 1088


def test_warmup_is_a_share_of_the_planned_steps_with_a_floor_and_the_preset_as_cap():
    assert scaled_warmup(121, 100) == 10  # 忙机器上 10 分钟只排得出 121 步：预热不再占去八成
    assert scaled_warmup(1057, 100) == 53
    assert scaled_warmup(4000, 100) == 100 and scaled_warmup(30, 5) == 5


def test_the_planner_times_steps_2_to_7_then_replans_by_the_clock():
    """5 分钟：第 8 步（第 2.5 秒）量得每步 0.25 秒，一次验证估计为 2 步（0.5 秒）
    → 8 + int(297 / (0.25 + 0.5/200)) = 1184 步。之后每隔 300/REPLANS = 6 秒重排，不看步数是不是验证的倍数。"""
    planner = MinutesPlanner(minutes=5, started=0.0, eval_every=200, validation_steps=2)
    assert planner.replan(0, 0.0) is None and planner.replan(1, 0.5) is None
    assert planner.replan(2, 1.0) is None  # 只记下起点
    assert planner.replan(7, 2.25) is None
    assert planner.replan(8, 2.5) == (0.25, 8 + int(297 / 0.2525))
    assert planner.replan(9, 2.75) is None and planner.replan(31, 8.49) is None  # 还没到 6 秒的间隔
    per_step, steps = planner.replan(32, 8.5)  # 第 8–31 步每步 0.25 秒
    assert per_step == pytest.approx(0.25) and steps == 32 + int((300 - 8.5 - 0.5) / 0.2525)
    planner.paused(3.0)  # 第一次验证连存档用了 3 秒：不算进每步用时，以后按 3 秒排剩下的验证
    assert planner.validation_s == 3.0
    per_step, steps = planner.replan(56, 8.5 + 3.0 + 24 * 0.25)
    assert per_step == pytest.approx(0.25) and steps == 56 + int((300 - 17.5 - 3) / (0.25 + 3 / 200))


def test_the_first_plan_describes_the_schedule_and_warns_when_it_is_shorter_than_warmup():
    planner = MinutesPlanner(minutes=5, started=0.0, eval_every=200)
    assert planner.describe(8, 0.25, 1198, warmup=60) == (
        "第 8 步前每步约 0.250 秒，5 分钟排定 1198 步（预热 60 步）：学习率的余弦在第 1198 步降到最低值"
    )
    assert planner.describe(200, 0.3, 80, warmup=100).startswith("第 200 步前每步约 0.300 秒，5 分钟重新排定 80 步")
    assert planner.describe(200, 0.3, 80, warmup=100).endswith("比预热的 100 步还短，学习率来不及降下来，请给更多分钟")


def test_a_budget_too_small_to_learn_says_what_to_do_instead():
    planner = MinutesPlanner(minutes=10, started=0.0, eval_every=200)
    why = planner.too_short(121, 4.95, 200)
    assert "10 分钟只走得完 121 步" in why and "少于这个模型学会点东西要的 200 步" in why
    assert "没有开始训练、没有写存档" in why and "--minutes 19 左右" in why  # 200 × 4.95 × 1.1 / 60 = 18.2 → 19
    assert "--width 88 --n-layers 4" in why and "关掉别的程序" in why
    assert planner.too_short(200, 4.95, 200) is None and planner.too_short(5, 1.0, 0) is None


def simulate(minutes, seconds_per_step, eval_every=200, validation_s=3.0, once=False):
    """照训练循环的次序走一遍假钟：每步之前问 replan，每 eval_every 步（与最后一步）验证连存档 validation_s 秒。
    seconds_per_step(now) 是此刻一步要几秒。返回 (结束的时刻, 走了几步)。"""
    planner = MinutesPlanner(minutes, 0.0, eval_every, validation_steps=2, once=once)
    now, step, total = 0.0, 0, 10**9
    while step < total:
        if (plan := planner.replan(step, now)) is not None:
            total = plan[1]
        now += seconds_per_step(now)
        step += 1
        if step % eval_every == 0 or step == total:
            now += validation_s
            planner.paused(validation_s)
    return now, step


@pytest.mark.parametrize(
    "minutes, speed",
    [
        (10, lambda now: 0.55),  # 机器空着，base 的一步
        (10, lambda now: 0.55 if now < 300 else 1.1),  # 一半时旁边来了别的工作，慢一倍
        (10, lambda now: 4.95),  # 一直很忙
        (10, lambda now: 1.1 if now < 300 else 0.55),  # 中途变闲
        (30, lambda now: 0.55 if now < 600 else 2.0),  # 后三分之二慢成将近四倍
        (5, lambda now: 0.3 + 0.3 * (now % 60 > 30)),  # 忽快忽慢
    ],
)
def test_a_minutes_run_ends_within_five_percent_of_the_budget(minutes, speed):
    ended, steps = simulate(minutes, speed)
    assert abs(ended - minutes * 60) <= 0.05 * minutes * 60, (ended, steps)


def test_a_long_validation_is_planned_for():
    """验证很贵（一次 20 秒、每 100 步一次）：剩下的验证也排进日程，照样按时结束。"""
    ended, steps = simulate(10, lambda now: 0.5, eval_every=100, validation_s=20.0)
    assert abs(ended - 600) <= 30 and steps < 1200 - 6 * 40


def test_replanning_only_at_validations_would_overrun_on_a_busy_machine():
    """对照：只在第 8 步排一次（分几次训练时就是这样），机器一半时变慢一倍，就超时两成以上——按钟表重排才按时结束。"""
    ended, _ = simulate(10, lambda now: 0.55 if now < 300 else 1.1, once=True)
    assert ended > 600 * 1.2


def test_only_changes_of_a_tenth_from_what_was_last_said_are_announced():
    """忙着的机器上一分钟的训练曾刷出十来行“重新排定”：小的调整只改进度条，与上一次说的差一成以上才说。"""
    planner = MinutesPlanner(minutes=1, started=0.0, eval_every=40)
    said = [n for n in (36, 34, 38, 33, 32, 40, 44, 45) if planner.worth_saying(n)]
    assert said == [36, 32, 40, 44]
