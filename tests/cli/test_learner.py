"""学习者的命令：课号解析、lesson、start 不覆盖、check 的各种判定与进度、hint、solution、diff、doctor、
合乎 JSON 却不合格式的进度文件、读不了的练习文件的中文说明。"""

import io
import json
import re
import sys
import time

import pytest
from conftest import ROOT

from courseware import catalogue, lesson_progress
from courseware.catalogue import CATALOGUE
from courseware.cli import display, main
from courseware.grading import wall_seconds
from courseware.grading.sandbox import unavailable_reason

ESC = re.compile(r"\x1b\[")


@pytest.mark.parametrize("bad", ["99", "abc", "-1", "", "0", "lesson-"])
def test_bad_lesson_numbers_exit_2_in_chinese(poet_here, bad):
    run = poet_here("lesson", bad)
    assert run.returncode == 2
    assert "不是有效的课号" in run.stderr and "1 到 26" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr


@pytest.mark.parametrize("spelling", ["9", "09", "lesson-09"])
def test_lesson_numbers_are_accepted_in_three_spellings(poet_here, spelling):
    run = poet_here("hint", spelling)
    assert run.returncode == 0 and "广播" in run.stdout


def test_hint_gives_a_nudge_first_and_the_recipe_with_more(poet_here):
    first = poet_here("hint", "20")
    assert first.returncode == 0 and "./poet hint 20 --more" in first.stdout and "masked_fill" not in first.stdout
    more = poet_here("hint", "20", "--more")
    assert more.returncode == 0 and "完整的做法" in more.stdout and "masked_fill" in more.stdout
    assert "./poet hint 9 --more" in poet_here("hint", "9").stdout


def test_course_map_and_lesson_output_have_no_escape_codes_in_a_pipe(poet):
    run = poet()
    assert run.returncode == 0 and "学习路径/03 · GPT 的内部" in run.stdout
    assert ("即将推出" in run.stdout) == any(not lesson.available for lesson in CATALOGUE)
    assert not ESC.search(run.stdout)
    run = poet("lesson", "9", env={"NO_COLOR": "1"})
    assert run.returncode == 0 and "位置 2 是否相同：True" in run.stdout
    assert not ESC.search(run.stdout)


def test_ctrl_c_during_a_lesson_stops_the_experiment_without_a_traceback():
    """终端里按 Ctrl-C：SIGINT 同时到达 ./poet 与实验进程；只印“已中断。”，退出码 130。"""
    import os
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "courseware.cli", "lesson", "19"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        start_new_session=True,  # 自己一个进程组，像终端里的一条命令
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # 后台启动时也收得到
    shown = ""
    while "experiment.py" not in shown:  # 实验进程已经启动
        shown += proc.stdout.readline()
    time.sleep(2.0)  # 实验正在导入 torch、读模型或训练
    os.killpg(proc.pid, signal.SIGINT)
    out = shown + proc.communicate(timeout=60)[0]
    assert proc.returncode == 130 and "已中断" in out and "Traceback" not in out and "KeyboardInterrupt" not in out, out


def test_start_never_overwrites(poet_here, workspace):
    mine = workspace / "lessons" / "09" / "my_exercise.py"
    assert poet_here("start", "9").returncode == 0
    mine.write_text("# 我的代码\n", encoding="utf-8")
    again = poet_here("start", "9")
    assert again.returncode == 1 and "已经存在" in again.stderr
    assert mine.read_text(encoding="utf-8") == "# 我的代码\n"
    forced = poet_here("start", "9", "--force")
    assert forced.returncode == 0 and "备份" in forced.stdout
    backups = list(mine.parent.glob("my_exercise.*.py"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == "# 我的代码\n"
    assert "NotImplementedError" in mine.read_text(encoding="utf-8")


GOOD = """\
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError("位置表不够长")
    return words + positions[past:past + T]"""


def test_check_records_progress(poet_here, workspace):
    run = poet_here("check", "9")
    assert run.returncode == 2 and "./poet start 9" in run.stderr
    poet_here("start", "9")
    blank = poet_here("check", "9")
    assert blank.returncode == 1 and "未完成" in blank.stdout and "请补全 solve" in blank.stdout
    progress = json.loads((workspace / ".progress.json").read_text(encoding="utf-8"))
    assert progress["09"]["status"] == "started" and progress["09"]["last_verdict"] == "未完成"
    mine = workspace / "lessons" / "09" / "my_exercise.py"
    mine.write_text(
        mine.read_text(encoding="utf-8").replace(
            '    raise NotImplementedError("请补全 solve', GOOD + '\n    raise NotImplementedError("'
        ),
        encoding="utf-8",
    )
    passed = poet_here("check", "9")
    assert passed.returncode == 0 and "通过" in passed.stdout and "28 个随机用例" in passed.stdout
    assert json.loads((workspace / ".progress.json").read_text(encoding="utf-8"))["09"]["status"] == "passed"
    table = poet_here("progress")
    assert "已通过 1 课" in table.stdout


@pytest.mark.parametrize(
    "body, verdict, detail",
    [
        (
            "def solve(words, positions, past):\n    if past + words.shape[1] > positions.shape[0]:\n        raise ValueError\n"
            "    return words - positions[past:past + words.shape[1]]\n",
            "答案错误",
            "个用例不对",
        ),
        ("def solve(words, positions, past):\n    return words.undefined()\n", "崩溃", "AttributeError"),
        ("def solve(words, positions, past)\n    return words\n", "语法错误", "第 1 行"),
        (
            "import torch\ndef solve(words, positions, past):\n    return torch.cat([words, positions])\n",
            "崩溃",
            "torch.cat",
        ),
        ("import os\nos._exit(3)\n", "崩溃", "退出码 3"),
        ("import os\nprint('本课补全练习通过。')\nos._exit(0)\n", "崩溃", "没有交回答案就退出了"),
        (b"\xff\xfe\x00bad", "语法错误", "UTF-8"),
    ],
)
def test_check_verdicts(poet_here, tmp_path, body, verdict, detail):
    path = tmp_path / "learner.py"
    path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    run = poet_here("check", "9", str(path))
    assert run.returncode == 1
    assert verdict in run.stdout and detail in run.stdout, run.stdout
    assert ("提示：./poet hint 9" in run.stdout) == (verdict == "答案错误"), run.stdout  # 答错了，提示在哪里
    assert "Traceback (most recent call last)" not in run.stdout + run.stderr


@pytest.mark.parametrize("bwrap", [True, False])
def test_check_says_one_short_line_before_the_verdict(poet, tmp_path, bwrap):
    """学习者检查自己的文件：判定之前只有一行，写着实际的时间上限；沙箱、uid、cgroup 的细节在 doctor 与 grade 里，
    没有 bubblewrap 时也不对学习者说一句像安全警告的话。"""
    path = tmp_path / "mine.py"
    path.write_text("def solve(words, positions, past):\n" + GOOD + "\n", encoding="utf-8")
    env = {"COLUMNS": "80"} if bwrap else {"COLUMNS": "80", "PATH": str(tmp_path)}  # PATH 里没有 bwrap
    run = poet("check", "9", str(path), "--timeout", "12", env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    before = run.stdout[: run.stdout.index("╭")].splitlines()
    assert len(before) == 1 and "12 秒" in before[0] and display.cell_len(before[0]) <= 80, before
    for word in ("--timeout 秒", "uid", "cgroup", "沙箱", "注意", "身份"):
        assert word not in run.stdout + run.stderr, word


def test_check_by_path_records_progress_only_for_the_learners_own_file(poet_here, workspace, tmp_path_factory):
    """./poet check 9 文件：文件就是工作区里的 lessons/09/my_exercise.py（怎样写路径都行）时记进度；
    别的文件照样检查，但说一句没有记进度。"""
    poet_here("start", "9")
    mine = workspace / "lessons" / "09" / "my_exercise.py"
    mine.write_text("def solve(words, positions, past):\n" + GOOD + "\n", encoding="utf-8")
    elsewhere = tmp_path_factory.mktemp("other") / "copy.py"
    elsewhere.write_bytes(mine.read_bytes())
    other = poet_here("check", "9", str(elsewhere))
    assert other.returncode == 0 and "没有记进度" in other.stderr, other.stderr
    assert json.loads((workspace / ".progress.json").read_text(encoding="utf-8"))["09"]["status"] == "started"
    own = poet_here("check", "9", str(workspace / "lessons" / ".." / "lessons" / "09" / "my_exercise.py"))
    assert own.returncode == 0 and "没有记进度" not in own.stderr
    assert json.loads((workspace / ".progress.json").read_text(encoding="utf-8"))["09"]["status"] == "passed"


def test_start_force_clears_an_old_pass(poet, workspace):
    (workspace / ".progress.json").write_text(
        json.dumps({"05": {"status": "passed", "last_verdict": "通过", "updated": "2026-12-01 20:40:11"}}),
        encoding="utf-8",
    )
    assert poet("start", "5").returncode == 0  # 还没有练习文件：建出来，以前的记录照旧
    assert json.loads((workspace / ".progress.json").read_text(encoding="utf-8"))["05"]["status"] == "passed"
    run = poet("start", "5", "--force")
    assert run.returncode == 0, run.stderr
    entry = json.loads((workspace / ".progress.json").read_text(encoding="utf-8"))["05"]
    assert entry["status"] == "started" and "last_verdict" not in entry, entry
    table = poet("progress", env={"COLUMNS": "80"})
    assert "已通过 0 课，已开始 1 课" in table.stdout
    row = next(line for line in table.stdout.splitlines() if "05" in line and "汉字表" in line)
    assert "已开始" in row and "通过" not in row.replace("已通过", ""), row


def test_the_map_says_what_comes_next_from_the_learners_progress(poet, workspace):
    def at(day):
        return f"2026-12-0{day} 10:00:00"

    def next_step(entries):
        (workspace / ".progress.json").write_text(json.dumps(entries), encoding="utf-8")
        run = poet(env={"COLUMNS": "200"})
        assert run.returncode == 0, run.stderr
        return next(line for line in run.stdout.splitlines() if line.startswith("下一步"))

    assert "./poet lesson 1（" in next_step({})
    passed = {f"{n:02d}": {"status": "passed", "updated": at(1)} for n in (5, 9)}
    assert "./poet lesson 10（第 10 课" in next_step(passed)  # 第 01 课没做也跟着最近的一课走
    started = passed | {"12": {"status": "started", "updated": at(2)}}
    assert "接着做第 12 课" in next_step(started) and "./poet check 12" in next_step(started)
    late = started | {"26": {"status": "passed", "updated": at(3)}}
    assert "./poet lesson 1（第 01 课" in next_step(late)  # 最后一课通过了：从头找没通过的


def test_endless_loop_is_stopped_by_the_time_limit(poet, tmp_path):
    path = tmp_path / "loop.py"
    path.write_text("def solve(words, positions, past):\n    while True:\n        pass\n", encoding="utf-8")
    run = poet("check", "9", str(path), "--timeout", "4", timeout=wall_seconds(4) + 120)
    # 停下它的是 4 秒 CPU 时间（机器再忙，花掉的墙上时间再长也一样）；不量墙上时间：负载能把它拉长好几倍，
    # 兜底的是墙上时间的后备上限 wall_seconds(4) 与上面 subprocess 的 timeout
    flat = run.stdout.replace("\n", "").replace("│", "").replace(" ", "")
    assert run.returncode == 1 and "超时" in run.stdout and ("CPU时间用完" in flat or "墙上时间超过" in flat)
    assert "死循环" in run.stdout and "--timeout调大" in flat


def test_solution_diff_and_doctor(poet, poet_here, workspace):
    sol = poet_here("solution", "9")
    assert sol.returncode == 0 and "return words + positions[past : past + T]" in sol.stdout
    poet_here("start", "9")
    diff = poet_here("diff", "9")
    assert diff.returncode == 0 and "参考答案" in diff.stdout and "NotImplementedError" in diff.stdout
    doctor = poet("doctor", env={"COLUMNS": "200"})
    sandboxed = unavailable_reason() is None  # 沙箱用不了时 doctor 如实报 ✗（见下一个测试）
    assert doctor.returncode == 0 and "99296 首诗" in doctor.stdout and "6672" in doctor.stdout
    assert ("没有沙箱" in doctor.stdout) != sandboxed
    shipped = {f.name for f in (ROOT / "data").iterdir()}
    assert {"rhymes.json", "t2s.json", "stats.json", "model.pt"} <= shipped  # stats.json：写诗按它的体裁首数抽体裁
    for name in sorted(shipped):  # 随课程发布的数据文件一个不漏
        assert f"data/{name}" in doctor.stdout, name


def test_doctor_reports_an_unusable_bwrap(poet, tmp_path):
    """装了 bwrap 却用不了（容器里不许建命名空间）：doctor 真的试跑一次，报 ✗ 与原因；课程照样能学，
    所以只是提醒（退出码 0），最后一行说明没有沙箱。"""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", encoding="utf-8"
    )
    (fake / "bwrap").chmod(0o755)
    doctor = poet("doctor", env={"COLUMNS": "300", "PATH": f"{fake}:/usr/bin:/bin"})
    row = next(line for line in doctor.stdout.splitlines() if "沙箱 bubblewrap" in line)
    assert "✗" in row and "用不了" in row and "No permissions to create new namespace" in row, row
    assert doctor.returncode == 0 and "只是检查练习时没有沙箱" in doctor.stdout and "有问题" not in doctor.stdout


def test_force_twice_in_one_second_keeps_every_backup(poet, workspace):
    mine = workspace / "lessons" / "09" / "my_exercise.py"
    poet("start", "9")
    mine.write_text("# 第一版\n", encoding="utf-8")
    poet("start", "9", "--force")
    mine.write_text("# 第二版\n", encoding="utf-8")
    poet("start", "9", "--force")
    kept = sorted(p.read_text(encoding="utf-8") for p in mine.parent.glob("my_exercise.*.py"))
    assert kept == ["# 第一版\n", "# 第二版\n"]


def test_files_from_windows_and_files_that_delete_their_folder(poet_here, tmp_path):
    bom = tmp_path / "bom.py"  # 记事本的“UTF-8 带 BOM”，换行是 CRLF
    bom.write_bytes(
        b"\xef\xbb\xbfimport torch\r\ndef solve(words, positions, past):\r\n    if past + words.shape[1] > positions.shape[0]:\r\n"
        b"        raise ValueError('too long')\r\n    return words + positions[past:past + words.shape[1]]\r\n"
    )
    assert poet_here("check", "9", str(bom)).returncode == 0
    wiper = tmp_path / "wiper.py"
    wiper.write_text(
        "import os\nfor f in os.listdir('.'):\n    os.remove(f)\n"
        "def solve(words, positions, past):\n    return words - positions[past:past + words.shape[1]]\n",
        encoding="utf-8",
    )
    run = poet_here("check", "9", str(wiper))
    # 删掉自己所在文件夹的练习：判为不通过（答案错误，或在沙箱里删掉了被检查的文件而崩溃），不会因此通过
    assert run.returncode == 1 and ("答案错误" in run.stdout or "崩溃" in run.stdout)
    assert "Traceback" not in run.stdout + run.stderr
    folder = poet_here("check", "9", str(tmp_path))
    assert folder.returncode == 2 and "是一个文件夹" in folder.stderr


def test_launcher_works_from_any_folder(tmp_path):
    import subprocess

    from conftest import ROOT

    run = subprocess.run(
        [str(ROOT / "poet"), "hint", "9"], cwd=tmp_path, capture_output=True, text=True, encoding="utf-8", timeout=60
    )
    assert run.returncode == 0 and "广播" in run.stdout


def test_reading_a_lesson_folds_the_answers_unless_asked(capsys):
    """--read：网页上折起来的答案在终端里也折起来，只说怎样打开；--answers 时照印，前面有一行标记。"""
    from courseware.cli import typeset

    text = "1. 题目？\n\n   <details><summary>查看答案</summary>\n\n   答案在这里。\n\n   </details>\n\n2. 下一题？\n"
    typeset.lesson_text(text, 21)
    shown = capsys.readouterr().out
    assert "答案在这里" not in shown and "./poet lesson 21 --read --answers" in shown and "下一题" in shown
    assert "details" not in shown
    typeset.lesson_text(text, 21, answers=True)
    shown = capsys.readouterr().out
    assert "【查看答案】往下就是答案" in shown and "details" not in shown
    assert shown.index("往下就是答案") < shown.index("答案在这里")


def test_answers_without_read_is_refused(monkeypatch):
    """--answers 只管 --read 的答案：单独给它不是悄悄去跑实验，而是一句中文、退出码 2。"""
    code, out, err = run_main(monkeypatch, "lesson", "23", "--answers")
    assert code == 2 and "--answers 只在 --read" in err and out == b"" and "Traceback" not in err


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


# ---------- 合乎 JSON、却不合格式的进度文件 ----------

STAMP = "2025-03-01 09:30:00"


@pytest.mark.parametrize(
    "data, kept, dropped",
    [
        ({"01": {"status": "passed"}, "02": 5}, {"01": {"status": "passed"}}, "02"),
        (
            {"01": {"status": "passed", "updated": 5}, "03": {"status": "started", "updated": STAMP}},
            {"03": {"status": "started", "updated": STAMP}},
            "01",
        ),
        (
            {"01": {"status": ["x"]}, "09": {"status": "passed", "last_verdict": "通过"}},
            {"09": {"status": "passed", "last_verdict": "通过"}},
            "01",
        ),
        ({"01": {"status": "bogus"}, "02": {"status": "started"}}, {"02": {"status": "started"}}, "01"),
        (
            {
                "99": {"status": "passed"},
                "\x1b[2J": {"status": "passed"},
                "02": {"status": "passed", "extra": 1},
                "04": {"status": "passed", "last_verdict": "\x1b[31m红"},
            },
            {},
            "02、04、99、\\x1b[2J",
        ),
    ],
)
def test_progress_entries_that_do_not_fit_are_dropped_once(monkeypatch, tmp_path, data, kept, dropped):
    path = tmp_path / ".progress.json"
    original = json.dumps(data).encode("utf-8")
    path.write_bytes(original)
    monkeypatch.setattr(catalogue, "workspace", lambda: tmp_path)  # 进度与 check 2 找的练习文件：不是学习者自己的那份
    for argv in ([], ["progress"], ["check", "2"]):  # 以前：AttributeError、NotRenderableError、TypeError
        code, out, err = run_main(monkeypatch, *argv)
        assert code in (0, 2) and "Traceback" not in err and "Error" not in err, err
        assert err.count("警告：进度文件") == (1 if argv == [] else 0), err  # 只在第一次读时说一次
    assert lesson_progress.load_progress() == kept
    backups = list(tmp_path.glob(".progress.json.broken-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == original  # 原文件一字不动地留着
    assert f"看不懂，已不算数：{dropped}；原文件已另存为 {backups[0].name}" in run_main_first_warning(
        monkeypatch, tmp_path, data
    )
    summary = run_main(monkeypatch, "progress")[1].decode("utf-8")
    passed = sum(e["status"] == "passed" for e in kept.values())
    started = len(kept) - passed
    assert f"已通过 {passed} 课，已开始 {started} 课，未开始 {len(CATALOGUE) - len(kept)} 课" in summary


def run_main_first_warning(monkeypatch, tmp_path, data) -> str:
    """把 data 写进另一个工作区的进度文件，运行一次 ./poet，返回它的标准错误（那一行警告）。"""
    other = tmp_path / "again"
    other.mkdir()
    (other / ".progress.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(catalogue, "workspace", lambda: other)
    err = run_main(monkeypatch)[2]
    backup = next(other.glob(".progress.json.broken-*")).name
    return err.replace(backup, next(tmp_path.glob(".progress.json.broken-*")).name)


def test_progress_text_is_shown_as_text(monkeypatch, tmp_path):
    path = tmp_path / ".progress.json"
    path.write_text(
        json.dumps({"09": {"status": "started", "last_verdict": "[red]答案错误[/]", "updated": STAMP}}),
        encoding="utf-8",
    )
    monkeypatch.setattr(catalogue, "workspace", lambda: tmp_path)
    code, out, err = run_main(monkeypatch, "progress")
    assert code == 0 and err == "" and "[red]答案错误[/]" in out.decode("utf-8")  # 方括号不是 rich 的标记
    assert list(tmp_path.iterdir()) == [path]


def test_diff_explains_files_it_cannot_parse(monkeypatch, tmp_path):
    gbk, comma = tmp_path / "gbk.py", tmp_path / "comma.py"
    gbk.write_bytes("def solve(x):\n    return '月'\n".encode("gbk"))
    comma.write_text("def solve(x):\n    return x，1\n", encoding="utf-8")
    code, _, err = run_main(monkeypatch, "diff", "9", str(gbk))
    assert code == 2 and "第 2 行不是 UTF-8 编码（常见于" in err and "编码：文件不是" not in err, err
    code, _, err = run_main(monkeypatch, "diff", "9", str(comma))
    assert code == 2 and "第 2 行：代码里不能用字符“，”" in err and "（invalid character '，' (U+FF0C)）" in err, err


@pytest.mark.parametrize(
    "content, words",
    [
        (
            "def solve(words, positions, past):\n    return '位置'\n".encode("gbk"),
            ["第 2 行不是 UTF-8 编码（常见于记事本或中文 Windows 默认的 GBK/ANSI 编码）：请把文件另存为 UTF-8"],
        ),
        (
            b"def solve(words, positions, past):\n\tx = 1\n        return x\n",
            [
                "第 3 行：缩进里混用了制表符（Tab）和空格：请统一用 4 个空格（inconsistent use of tabs and spaces in indentation）"
            ],
        ),
        (
            "def solve(words, positions, past)：\n    return words\n".encode(),
            [
                "第 1 行：代码里不能用字符“：”",
                "（invalid character '：' (U+FF1A)）",
                "def solve(words, positions, past)：",
            ],
        ),
    ],
)
def test_check_explains_encoding_and_syntax_in_chinese(monkeypatch, tmp_path, content, words):
    path = tmp_path / "mine.py"
    path.write_bytes(content)
    monkeypatch.setattr(display.console, "_width", 300)  # 消息不折行
    code, out, err = run_main(monkeypatch, "check", "9", str(path))
    text = out.decode("utf-8")
    assert code == 1 and "语法错误" in text and all(w in text for w in words), text
    assert "编码：文件不是 UTF-8 编码" not in text


def test_lesson_runs_the_experiment_with_one_thread_as_it_was_recorded(monkeypatch):
    """./poet lesson 用录下记录时的线程数（一个）跑实验：印出的数与课文一致，忙的两核笔记本上也不互相空等；
    学习者自己设了 OMP_NUM_THREADS 时听他的。"""
    from courseware.cli import learner
    from courseware.selfcheck.verify import THREADS

    seen = []
    monkeypatch.setattr(learner.subprocess, "call", lambda command, cwd, env: seen.append(env) or 0)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    code, out, err = run_main(monkeypatch, "lesson", "9")
    assert code == 0, err
    assert seen[-1]["OMP_NUM_THREADS"] == str(THREADS) == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    run_main(monkeypatch, "lesson", "9")
    assert seen[-1]["OMP_NUM_THREADS"] == "2"
