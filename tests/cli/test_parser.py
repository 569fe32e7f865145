"""参数：超长与奇怪的参数、数值参数的范围、多余的参数、中文的错误消息与帮助。

能在进程里调用 main 的都在进程里调用（每个 ./poet 子进程要 1.5 秒）。
"""

import io
import re
import sys

import pytest
from rich.cells import cell_len

from courseware.cli import main
from courseware.cli.parser import MAX_ARGUMENT, temperature


def test_bad_arguments_are_explained_in_chinese(poet, poet_here):
    run = poet("frobnicate")  # 真的命令（子进程）：退出码与标准错误
    assert run.returncode == 2 and "命令写得不对" in run.stderr and "Traceback" not in run.stdout + run.stderr
    run = poet_here("check", "9", "/no/such/file.py")
    assert run.returncode == 2 and "找不到文件" in run.stderr
    run = poet_here("check", "9", "--timeout", "abc")
    assert run.returncode == 2 and "Traceback" not in run.stdout + run.stderr


def test_argument_errors_are_in_chinese(poet_here):
    run = poet_here("write", "月", "--form", "6")
    assert run.returncode == 2 and "只能从 5、7 中选" in run.stderr and "invalid" not in run.stderr
    run = poet_here("check")
    assert run.returncode == 2 and "缺少参数" in run.stderr
    assert "显示帮助" in poet_here("--help").stdout


def run_main(monkeypatch, *argv, encoding="utf-8"):
    """在进程里运行 poet，stdout、stderr 换成 encoding 编码的流（stdout 为 strict，stderr 与 Python 一样为
    backslashreplace）。返回 (退出码, stdout 的字节, stderr 的文字)。"""
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="backslashreplace", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse：--help（0）或参数写错（2）
        code = e.code
    return code, out.buffer.getvalue(), err.buffer.getvalue().decode(encoding)


# ---------- 超长与奇怪的参数 ----------


@pytest.mark.parametrize(
    "argv, words",
    [
        (["write", "月" * 10_000], ["第 2 个参数太长（10000 个字符）", "共 10000 个字符"]),
        (["write", "月" * 50], ["关键词太长：50 个字符", "共 50 个字符"]),
        (["write", "--acrostic", "春" * 41], ["藏头字太长", "共 41 个字符"]),
        (["write", "月\x00"], ["第 2 个参数", "空字符 \\x00"]),
        (["write", "\x1b[2J月"], ["控制字符 \\x1b"]),
        (["write", "😀"], ["“😀”不是汉字"]),
        (["lesson", "9" * 200], ["不是有效的课号", "共 200 个字符"]),
        (["check", "9", "/tmp/" + "x" * 300 + ".py"], ["第 3 个参数太长", "每个文件名最长 255 字节"]),
        (["check", "9", "/tmp/no-such" + "/长" * 80 * 3 + ".py"], ["找不到文件", "共 495 个字符"]),
        (["write", "月", "--checkpoint", "/tmp/" + "d/" * 1000], ["找不到模型存档", "共 2004 个字符"]),
        (["grade", "/tmp/" + "班" * 100], ["第 2 个参数太长"]),
        (["train", "--out", "x" * (MAX_ARGUMENT + 1)], ["第 3 个参数太长"]),
        (["write", "月", "--top-k", "9" * 200 + "x"], ["不是整数", "共 201 个字符"]),
        (["write", "月", "--form", "6" * 200], ["只能从 5、7 中选", "共 200 个字符"]),
    ],
)
def test_odd_arguments_get_a_short_chinese_message(monkeypatch, argv, words):
    code, out, err = run_main(monkeypatch, *argv)
    assert code == 2, err
    assert all(w in err for w in words), err
    assert len(err) < 600 and "Traceback" not in err
    assert "\x1b" not in err and "\x00" not in err  # 控制字符只以转义的样子回显


# ---------- 数值参数 ----------


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("--temperature", "10.5", "在 0.01 到 10 之间，收到 10.5"),
        ("--temperature", "1e300", "在 0.01 到 10 之间"),
        ("--temperature", "-1", "温度不能是负数：0 表示每步取最可能的字，其余要不小于 0.01，收到 -1"),
        (
            "--temperature",
            "0.001",
            "在 0.01 到 10 之间，收到 0.001（小于 0.01 的温度写出来与每步取最可能的字几乎没有分别，要这样就给 0",
        ),
        ("--temperature", "nan", "有限数"),
        ("--temperature", "-inf", "有限数"),
        ("--top-k", "-1", "至少为 0"),
        ("--top-k", "nan", "不是整数"),
        ("--top-p", "0", "大于 0"),
        ("--top-p", "1.01", "最多 1"),
        ("--top-p", "inf", "有限数"),
        ("-n", "0", "正整数"),
        ("--seed", "-1", "随机种子"),
    ],
)
def test_write_number_ranges(monkeypatch, option, value, words):
    code, _, err = run_main(monkeypatch, "write", "月", f"{option}={value}")  # -inf 这样的值要用 = 连上
    assert code == 2 and words in err and option in err, err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["train", "--steps", "0"], "正整数"),
        (["train", "--steps", "nan"], "不是整数"),
        (["train", "--minutes", "0"], "大于 0"),
        (["train", "--minutes", "inf"], "有限数"),
        (["train", "--minutes", "nan"], "有限数"),
        (["train", "--minutes", "1e9"], "最多 10080"),
        (["check", "9", "--timeout", "nan"], "有限数"),
        (["grade", ".", "--jobs", "0"], "正整数"),
    ],
)
def test_other_number_ranges(monkeypatch, argv, words):
    code, _, err = run_main(monkeypatch, *argv)
    assert code == 2 and words in err, err


@pytest.mark.parametrize(
    "value, right, wrong",
    [
        ("-1", "温度不能是负数：0 表示每步取最可能的字，其余要不小于 0.01", "几乎没有分别"),
        ("-0.001", "温度不能是负数", "几乎没有分别"),
        ("0.001", "小于 0.01 的温度写出来与每步取最可能的字几乎没有分别，要这样就给 0", "负数"),
    ],
)
def test_negative_temperature_has_its_own_message(monkeypatch, value, right, wrong):
    # 负数不是“太接近贪心”：它另有一句说明，0 < T < 0.01 的那句说明不变
    code, _, err = run_main(monkeypatch, "write", "月", f"--temperature={value}")
    assert code == 2 and right in err and wrong not in err, err


@pytest.mark.parametrize(
    "argv, usage",
    [
        (["hint", "9", "extra"], "用法：./poet hint"),
        (["check", "9", "a.py", "b.py"], "用法：./poet check"),
    ],
)
def test_extra_arguments_are_reported_by_the_subcommand(monkeypatch, argv, usage):
    # 多出来的参数由子命令报错，印它自己的用法与帮助，不印 poet 的总用法
    code, _, err = run_main(monkeypatch, *argv)
    assert code == 2 and f"不认识这些参数：{argv[-1]}" in err and usage in err, err
    assert "poet [-h] 命令" not in err and f"查看帮助：{usage[3:]} --help" in err, err


def test_temperature_bounds_are_inclusive():
    assert temperature("0") == 0 and temperature("0.01") == 0.01 and temperature("10") == 10


@pytest.mark.parametrize(
    "command",
    [
        [],
        *(
            [c]
            for c in (
                "lesson",
                "start",
                "check",
                "hint",
                "solution",
                "diff",
                "progress",
                "doctor",
                "train",
                "write",
                "eval",
                "grade",
                "verify",
                "site",
            )
        ),
    ],
)
def test_help_headings_are_full_width(monkeypatch, command):
    code, out, _ = run_main(monkeypatch, *command, "--help")
    text = out.decode("utf-8")
    assert code == 0 and text.startswith("用法：./poet") and "\n选项：\n" in text
    assert not re.search(r"^\S[^\n]*[^:\s]:$", text, flags=re.M), text  # 没有以半角冒号结尾的标题
    assert ("\n参数：\n" in text) == (
        command not in ([], ["progress"], ["doctor"], ["train"], ["eval"], ["verify"], ["site"])
    )


# ---------- 消息：参数名与取值的写法、中文的参数名、语法错误的中文说明 ----------


@pytest.mark.parametrize(
    "argv, words",
    [
        (["foo"], "命令写得不对：命令不能是“foo”，只能从 lesson、start、"),
        (["train", "--preset", "huge"], "--preset 不能是“huge”，只能从 tiny、base、regulated 中选"),
        (["write", "月", "--form", "6"], "--form 不能是“6”，只能从 5、7 中选"),
        (["grade"], "缺少参数：班级文件夹\n用法：./poet grade"),
        (["check"], "缺少参数：课号\n用法：./poet check [-h] [--timeout 秒数] 课号 [文件]"),
        (["write", "月", "--top-k", "x"], "--top-k “x”不是整数"),
    ],
)
def test_argument_errors_quote_once_and_name_things_in_chinese(monkeypatch, argv, words):
    code, _, err = run_main(monkeypatch, *argv)
    assert code == 2 and words in err, err
    assert "'" not in err.splitlines()[0] and "CLASS" not in err


@pytest.mark.parametrize("command", ["grade", "write", "train", "check"])
def test_help_with_chinese_names_lines_up_and_fits_80_columns(monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "80")
    text = run_main(monkeypatch, command, "--help")[1].decode("utf-8")
    assert all(cell_len(line) <= 80 for line in text.splitlines()), text
    starts = set()  # 每行说明文字从第几格开始：带汉字的“--seed 种子”与“--json”对齐
    for line in text.split("选项：\n")[1].splitlines():
        m = re.match(r"(  -\S*(?: \S+)?\s{2,})\S", line)
        if m:
            starts.add(cell_len(m.group(1)))
    assert len(starts) == 1, text
    assert re.search(r"^  -h, --help +显示帮助$", text, flags=re.M)
