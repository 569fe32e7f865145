"""settings.py（模型库）与 courseware/defaults.py（课件）是每个默认值与范围唯一的出处：./poet 的选项、模型库与批改都读它们，
它们自己不导入 torch。"""

import argparse
import subprocess
import sys

import pytest

from courseware import defaults
from courseware.cli import parser as cli_parser
from courseware.cli.main import build_parser
from poetry_gpt import settings


def options() -> dict[tuple[str, str], argparse.Action]:
    """(子命令, 选项) → argparse 的 Action，走遍 ./poet 的每个子命令。"""
    found = {}
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command, p in sub.choices.items():
        for action in p._actions:
            for flag in action.option_strings:
                found[command, flag] = action
    return found


OPTIONS = options()


def test_the_walk_finds_every_command():
    assert {c for c, _ in OPTIONS} >= {"train", "write", "eval", "check", "grade", "verify"}


@pytest.mark.parametrize(
    "command, flag, default",
    [
        ("write", "--temperature", settings.TEMPERATURE),
        ("write", "--top-k", settings.TOP_K),
        ("write", "--top-p", settings.TOP_P),
        ("write", "--tones", settings.VERSE.tones),
        ("write", "--rhyme", settings.VERSE.rhyme),
        ("write", "--drafts", settings.DRAFTS),
        ("write", "--score", settings.SCORE),
        ("check", "--timeout", defaults.CHECK_TIMEOUT_S),
        ("grade", "--timeout", defaults.CHECK_TIMEOUT_S),
        ("grade", "--memory", defaults.CHECK_MEMORY_MB),
        ("train", "--device", settings.DEVICES[0]),
        ("eval", "--prompts", settings.EVAL_PROMPTS),
    ],
)
def test_option_defaults_come_from_settings(command, flag, default):
    action = OPTIONS[command, flag]
    assert action.default == default and type(action.default) is type(default)
    if action.help and "默认" in action.help and not isinstance(default, bool):
        shown = f"{default:g}" if isinstance(default, float) else str(default)
        assert f"默认 {shown}" in action.help, action.help  # 帮助里写的默认值就是实际的默认值


@pytest.mark.parametrize(
    "command, flag, choices",
    [
        ("train", "--preset", settings.PRESET_NAMES),
        ("train", "--precision", settings.PRECISIONS),
        ("train", "--device", settings.DEVICES),
        ("train", "--schedule", settings.SCHEDULES),
        ("train", "--optimizer", settings.OPTIMIZERS),
        ("write", "--tones", settings.TONE_MODES),
        ("write", "--score", settings.SCORES),
    ],
)
def test_option_choices_come_from_settings(command, flag, choices):
    assert tuple(OPTIONS[command, flag].choices) == choices


def test_preset_names_are_the_presets():
    from poetry_gpt.train_config import PRESETS, TrainConfig

    assert settings.PRESET_NAMES == tuple(PRESETS)
    assert TrainConfig.__dataclass_fields__["precision"].default in settings.PRECISIONS
    assert all(config.precision in settings.PRECISIONS for config in PRESETS.values())


def test_the_library_defaults_are_the_settings():
    from courseware.grading import Limits
    from poetry_gpt.sampling import SAMPLING

    assert (SAMPLING.temperature, SAMPLING.top_k, SAMPLING.top_p) == (
        settings.TEMPERATURE,
        settings.TOP_K,
        settings.TOP_P,
    )
    assert (Limits().timeout, Limits().memory_mb) == (defaults.CHECK_TIMEOUT_S, defaults.CHECK_MEMORY_MB)


def test_the_library_reads_the_other_defaults_from_settings():
    import inspect

    from courseware.grading import wall_seconds
    from poetry_gpt import evaluation, metrics, train
    from poetry_gpt.train_config import TrainConfig

    assert inspect.signature(train.train).parameters["device"].default == settings.DEVICES[0]
    assert TrainConfig.__dataclass_fields__["precision"].default == settings.PRECISIONS[0]
    assert TrainConfig.__dataclass_fields__["schedule"].default == settings.SCHEDULES[0]
    assert TrainConfig.__dataclass_fields__["optimizer"].default == settings.OPTIMIZERS[0]
    assert inspect.signature(evaluation.evaluate_model).parameters["n_prompts"].default == settings.EVAL_PROMPTS
    assert len(metrics.eval_prompts()) == settings.EVAL_PROMPTS
    for name, default in (("drafts", settings.DRAFTS), ("score", settings.SCORE)):  # eval 与 write 挑草稿的办法相同
        assert inspect.signature(evaluation.evaluate_model).parameters[name].default == default
    assert f"{settings.DRAFTS}；--plain 时 1" in OPTIONS["eval", "--drafts"].help
    for command in ("write", "eval"):
        assert (OPTIONS[command, "--drafts"].type.low, OPTIONS[command, "--drafts"].type.high) == (
            1,
            settings.MAX_DRAFTS,
        )
    assert wall_seconds(20.0) == defaults.WALL_FACTOR * 20.0 + defaults.WALL_EXTRA_S == 70.0
    for command in ("check", "grade"):  # 帮助里写的后备上限就是 wall_seconds 用的
        help_text = OPTIONS[command, "--timeout"].help
        assert f"{defaults.WALL_FACTOR} 倍加 {defaults.WALL_EXTRA_S} 秒" in help_text, help_text


@pytest.mark.parametrize("text", ["0", "0.01", "0.8", "10", "0.001", "10.5", "-1", "1e300", "nan", "-inf"])
def test_cli_and_library_refuse_the_same_temperatures(text):
    """温度只在 settings.temperature_problem 里查一次：--temperature 与 SamplingConfig 收下、拒绝的是同一批数。"""
    from poetry_gpt.sampling import SamplingConfig

    try:
        cli_parser.temperature(text)
        cli_ok = True
    except argparse.ArgumentTypeError:
        cli_ok = False
    try:
        SamplingConfig(temperature=float(text))
        library_ok = True
    except ValueError:
        library_ok = False
    assert cli_ok == library_ok == (settings.temperature_problem(float(text)) is None)


@pytest.mark.parametrize(
    "kind, text", [("top_k", "0"), ("top_k", "-1"), ("top_p", "1"), ("top_p", "0"), ("top_p", "1.01"), ("top_p", "0.5")]
)
def test_cli_and_library_share_the_top_k_and_top_p_bounds(kind, text):
    from poetry_gpt.sampling import SamplingConfig

    cast = int if kind == "top_k" else float
    try:
        getattr(cli_parser, kind)(text)
        cli_ok = True
    except argparse.ArgumentTypeError:
        cli_ok = False
    try:
        SamplingConfig(**{kind: cast(text)})
        library_ok = True
    except ValueError:
        library_ok = False
    assert cli_ok == library_ok


HEAVY = ("torch", "numpy")


@pytest.mark.parametrize(
    "code",
    [
        "import poetry_gpt.settings",
        "import courseware.defaults",
        "from courseware.cli.main import build_parser; build_parser()",  # ./poet 启动、解析参数
    ],
)
def test_settings_and_the_cli_start_without_torch(code):
    probe = f"import sys; {code}; print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"{code} 导入了 {done.stdout.strip()}"
