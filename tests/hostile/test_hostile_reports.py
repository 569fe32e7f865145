"""报告文件与名字上的捣乱，交给 ./poet grade：老师读到的每一行都分得清是谁、来自哪个文件夹，报告旁边的文件
不跟随别人放的链接、不截断以前留下的记录，同一份报告同时只有一个批改在写。

班里放的：印出来与同学一模一样的名字（alice 与 alice 加 U+034F、bob 加标签字符 U+E0020、José 的两种 Unicode 写法、
真叫“\\xd5\\xc5\\xc8\\xfd”的文件夹与名字是这四个 GBK 字节的文件夹）、用别的数字写课号的文件（𝟎𝟗.py、٠٩.py）、
全角等号与空格开头的公式名字；报告旁边放着指向“别人的文件”的 <报告>.partial.jsonl 链接。
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hostile_kit import ROOT, needs_sandbox, poet, solution
from test_hostile_check import as_ordinary_user

from courseware.grading import gradebook
from courseware.grading.classroom import folder_name, shown_name

NOT_DONE = b"def solve(*args):\n    raise NotImplementedError\n"  # 动过的起始代码：判定“未完成”
GBK = os.fsdecode(b"\xd5\xc5\xc8\xfd")  # “张三”的 GBK 字节：不是 UTF-8，名字写成转义
LITERAL = "\\xd5\\xc5\\xc8\\xfd"  # 真叫这十六个 ASCII 字符的文件夹：shown_name 与上面那个一样
VICTIM = "别人的文件，批改程序不该写它\n"


def build(root: Path) -> dict[str, tuple[str, bytes]]:
    """班级文件夹：文件夹名 → (课号, 内容)；诚实的与捣乱的成对，印出来的名字一样或几乎一样。"""
    honest05, honest09 = solution("05"), solution("09")
    folders = {
        "alice": ("05", honest05),
        "alice\u034f": ("05", NOT_DONE),
        "bob": ("05", honest05),
        "bob\U000e0020": ("05", NOT_DONE),
        "Jos\u00e9": ("05", honest05),
        "Jose\u0301": ("05", NOT_DONE),
        GBK: ("05", honest05),
        LITERAL: ("05", NOT_DONE),
        " =1+1": ("05", honest05),
        "\uff1dHYPERLINK(1)": ("05", honest05),
        "digits": ("09", honest09),
    }
    for name, (code, data) in folders.items():
        (root / name).mkdir(parents=True)
        (root / name / f"{code}.py").write_bytes(data)
    for lookalike in ("\U0001d7ce\U0001d7d7.py", "\u0660\u0669.py"):  # 𝟎𝟗.py、٠٩.py：int() 也读成 9
        (root / "digits" / lookalike).write_bytes(NOT_DONE)
    (root / "only_lookalike").mkdir()
    (root / "only_lookalike" / "\U0001d7ce\U0001d7d7.py").write_bytes(honest09)
    return folders


USERS = ["self"] + (["ordinary"] if os.geteuid() == 0 else [])
"""批改程序以谁的身份运行：跑测试的用户，以 root 跑测试时（CI）再以一个普通用户（test_hostile_check.as_ordinary_user）。"""


@pytest.fixture(scope="module", params=USERS)
def graded(request):
    """把班交给 ./poet grade 一次。班级与报告放在 /tmp 下一个别人进得去的文件夹里（普通用户那一趟要读写它），
    报告文件夹别人也能写：那里有一个指向“别人的文件”的链接。"""
    base = Path(tempfile.mkdtemp(prefix="poet-reports-", dir="/tmp"))
    base.chmod(0o755)
    root, out, work = base / "class", base / "out", base / "work"
    for folder in (out, work):
        folder.mkdir()
        folder.chmod(0o777)  # 共用的报告文件夹：谁都能在里面放东西
    folders = build(root)
    victim = base / "victim.txt"
    victim.write_text(VICTIM, encoding="utf-8")
    json_path, csv_path = out / "成绩.json", out / "成绩.csv"
    planted = out / "成绩.json.partial.jsonl"
    planted.symlink_to(victim)  # 能写报告文件夹的另一个用户放的链接
    prefix = as_ordinary_user(base) if request.param == "ordinary" else []
    run = subprocess.run(
        [*prefix, sys.executable, "-m", "courseware.cli", "grade", str(root), "--jobs", "2", "--memory", "1024"]
        + ["--csv", str(csv_path), "--json", str(json_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=900,
        env={**os.environ, "TMPDIR": str(work), "HOME": str(work), "COLUMNS": "300"},
    )
    yield dict(
        run=run,
        folders=folders,
        victim=victim,
        planted=planted,
        out=out,
        report=json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None,
        csv=csv_path.read_bytes().decode("utf-8-sig") if csv_path.exists() else "",
    )
    shutil.rmtree(base, ignore_errors=True)


def labels(graded) -> dict[str, str]:
    return {v["learner"]: v["label"] for v in graded["report"]["verdicts"] if v["kind"] != "missing"}


@needs_sandbox
def test_partial_log_never_follows_a_planted_link(graded):
    """<报告>.partial.jsonl 是别人放的链接：批改程序不打开它（O_EXCL、O_NOFOLLOW），指向的文件一字不变，链接原样留着
    并在输出里点名；这次的记录写在下一个空名字上，报告写完就删掉；锁文件也不留。"""
    run = graded["run"]
    assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr, run.stdout[-3000:] + run.stderr[-3000:]
    assert graded["victim"].read_text(encoding="utf-8") == VICTIM
    assert graded["planted"].is_symlink()
    flat = run.stdout.replace("\n", "")
    assert "成绩.json.partial.jsonl 是以前一次没有批完" in flat and "成绩.json.partial-2.jsonl" in flat, run.stdout
    assert sorted(p.name for p in graded["out"].iterdir()) == ["成绩.csv", "成绩.json", "成绩.json.partial.jsonl"]


@needs_sandbox
def test_names_that_print_alike_are_told_apart(graded):
    """看不见的字符与不是 NFC 的写法写成转义；转义后撞名的两个都写明来自哪个文件夹，判定各是各的。"""
    got = labels(graded)
    assert got["alice"] == "通过" and got["alice\\u034f"] == "未完成"
    assert got["bob"] == "通过" and got["bob\\U000e0020"] == "未完成"
    assert got["Jos\u00e9"] == "通过" and got["Jose\\u0301"] == "未完成"
    real, literal = (f"{shown_name(GBK)}（文件夹 {folder_name(name)}）" for name in (GBK, LITERAL))
    assert real != literal and got[real] == "通过" and got[literal] == "未完成", got
    assert literal == "\\xd5\\xc5\\xc8\\xfd（文件夹 \\\\xd5\\\\xc5\\\\xc8\\\\xfd）"
    shown = graded["run"].stdout + graded["csv"] + json.dumps(graded["report"], ensure_ascii=False)
    for hidden in ("\u034f", "\U000e0020", "\u0301"):
        assert hidden not in shown


@needs_sandbox
def test_only_ascii_digits_make_a_lesson_number(graded):
    """𝟎𝟗.py、٠٩.py 不是第 09 课：真的 09.py 照常批改，它们列进“不批改”；只交了 𝟎𝟗.py 的人在名单上，却没有交练习。"""
    got, ignored = labels(graded), graded["report"]["ignored"]
    assert got["digits"] == "通过"
    assert "digits/\U0001d7ce\U0001d7d7.py：不是 NN.py 或 lessons/NN/my_exercise.py" in ignored, ignored
    assert "digits/\u0660\u0669.py：不是 NN.py 或 lessons/NN/my_exercise.py" in ignored, ignored
    assert "only_lookalike" in graded["report"]["learners"]
    assert not [v for v in graded["report"]["verdicts"] if v["learner"] == "only_lookalike" and v["kind"] != "missing"]


@needs_sandbox
def test_csv_guards_full_width_and_space_led_formulas(graded):
    rows = graded["csv"].splitlines()
    assert any(row.startswith("' =1+1,") for row in rows), rows
    assert any(row.startswith("'\uff1dHYPERLINK(1),") for row in rows), rows


def test_a_second_grader_on_the_same_report_stops(tmp_path):
    """同一份 --json 已经有一个批改占着：第二个不开始批改，用中文说明是谁占着，以非零退出，不碰那份报告。"""
    (tmp_path / "class" / "a").mkdir(parents=True)
    (tmp_path / "class" / "a" / "05.py").write_bytes(solution("05"))
    report = tmp_path / "r.json"
    with gradebook.reports_locked(None, str(report)):
        run = poet("grade", str(tmp_path / "class"), "--memory", "1024", "--json", str(report))
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stdout + run.stderr
    assert "另一个 ./poet grade 正在写同一份报告" in run.stderr.replace("\n", ""), run.stderr
    assert not report.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["class"]
