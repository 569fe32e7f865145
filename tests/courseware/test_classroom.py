"""./poet grade 与 ./poet verify：一个在 tmp_path 里搭起来的班级，里面有对的、错的、会崩的、
死循环的、语法错误的和各种“捣乱”的第 09 课练习；每份都要得到正确的判定，整轮有时间上界。"""

import json
import math
import os
import re
import time
from pathlib import Path
from textwrap import indent

import pytest
from conftest import ROOT

from courseware.catalogue import BY_NUMBER
from courseware.grading import Verdict, sandbox, wall_seconds
from courseware.grading.classroom import ClassroomError, find_submissions, parse_lessons
from courseware.grading.gradebook import check_report_paths, reason, report_csv, write_reports

TIMEOUT = 12  # 秒；死循环的练习各耗掉一两个这么长的时间（机器很忙时，正常的练习一步也要好几秒）
JOBS = 2
VISIBLE = """

if __name__ == "__main__":
    x = torch.zeros(2, 3, 4)
    p = torch.arange(12.0).view(3, 4)
    y = solve(x, p)
    assert y.shape == (2, 3, 4)
    assert torch.equal(y[0], p), "字向量全为 0 时，结果应正好等于位置表"
    print("本课补全练习通过。")
"""


def exercise(body: str, top: str = "") -> str:
    """一份第 09 课练习：top 放在 import torch 之后，body 是 solve 的函数体。"""
    return f"import torch\n{top}\n\ndef solve(words, positions, past=0):\n{indent(body, '    ')}\n{VISIBLE}"


ROWS = "positions[past:past + words.shape[1]]"
GUARD = "if past + words.shape[1] > positions.shape[0]:\n    raise ValueError('位置表不够长')\n"  # 太长的用例要 raise
RIGHT = exercise(GUARD + f"return words + {ROWS}")


def build_class(root, victim_dir=None):
    """学习者名 → (相对路径, 内容, 期望的判定标签)。victim_dir 给“往外写文件”的那份练习用。"""
    outside = (victim_dir or root) / "outside.txt"
    writer_top = (
        f"from pathlib import Path\n"
        f"Path({str(outside)!r}).write_text('来过', encoding='utf-8')\n"
        f"Path({str(root / 'bai' / '09.py')!r}).write_text('def solve(w, p):\\n    return w\\n', encoding='utf-8')\n"
    )
    learners = {
        "ada": ("lessons/09/my_exercise.py", RIGHT, "通过"),
        "bai": ("09.py", RIGHT, "通过"),  # ren 会在运行时改写这个文件
        "chen": ("09.py", exercise(GUARD + f"return words + {ROWS}.round()"), "答案错误"),  # 可见检查碰巧通过
        "du": ("09.py", exercise(GUARD + f"return words + 2 * {ROWS}"), "答案错误"),
        "fang": ("09.py", exercise('raise NotImplementedError("请补全 solve：把位置表加上去")'), "未完成"),
        "gao": ("09.py", exercise("return words @ positions"), "崩溃"),
        "he": ("09.py", exercise("while True:\n    pass"), "超时"),
        "jin": ("09.py", exercise("return words +"), "语法错误"),
        "lu": (
            "09.py",
            exercise(
                "return repr(Loop())",
                "import sys\nsys.setrecursionlimit(10**8)\n\n\n"
                "class Loop:\n    def __repr__(self):\n        return repr(self)",
            ),
            "崩溃",
        ),  # 栈溢出
        "ni": ("09.py", exercise(f"return words + {ROWS}  # 位置表沿批维度广播").encode("gbk"), "语法错误"),
        "ou": ("09.py", "", "缺"),  # 空文件算作没交
        "qin": (
            "09.py",
            exercise(
                "return reference(words, positions, past)",
                "import sys\nsys.path.insert(0, 'lessons/09')\nfrom solution import solve as reference",
            ),
            "崩溃",
        ),
        # 沙箱里班级文件夹与 tmp_path 都不存在：写文件失败，程序崩溃，别人的文件不受影响
        "ren": ("lessons/09/my_exercise.py", exercise(f"return words + {ROWS}", writer_top), "崩溃"),
    }
    for name, (rel, text, _) in learners.items():
        path = root / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return learners


@pytest.fixture
def klass(tmp_path):
    root = tmp_path / "class"
    learners = build_class(root, tmp_path)
    (root / "empty").mkdir()
    (root / "名单.txt").write_text("老师的笔记", encoding="utf-8")
    (root / "ada" / "notes.py").write_text("print(1)\n", encoding="utf-8")
    (root / "zed").mkdir()
    (root / "zed" / "99.py").write_text(RIGHT, encoding="utf-8")
    return root, learners


@pytest.mark.sandbox  # 没有沙箱时 ren 真的会往外写文件：跳过（tests/conftest.py）
def test_grade_a_hostile_class(poet, klass, tmp_path):
    root, learners = klass
    csv_path, json_path = tmp_path / "out" / "成绩.csv", tmp_path / "out" / "成绩.json"
    csv_path.parent.mkdir()  # 报告的文件夹要先在（grade 不替人建）
    started = time.monotonic()
    run = poet(
        "grade",
        str(root),
        "--lessons",
        "9",
        "--timeout",
        str(TIMEOUT),
        "--memory",
        "1024",
        "--jobs",
        str(JOBS),
        "--csv",
        str(csv_path),
        "--json",
        str(json_path),
        timeout=600,
        env={"COLUMNS": "200"},
    )
    wall = time.monotonic() - started
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr

    # 上界：每份练习最多两步、每步最晚在墙上时间的后备上限 wall_seconds(TIMEOUT) 结束（机器忙时 TIMEOUT 秒的 CPU
    # 时间要更久的墙上时间，所以不拿 TIMEOUT 当墙上时间），JOBS 份同时跑，外加启动的余量
    bound = math.ceil(len(learners) / JOBS) * 2 * wall_seconds(TIMEOUT) + 60
    assert wall < bound, (wall, bound)

    import csv

    text = csv_path.read_bytes().decode("utf-8")
    assert text.startswith("\ufeff")
    table = list(csv.reader(text[1:].splitlines()))
    # empty 与 zed 的文件夹里没有认得出的练习：也在名单上，每课都是“缺”
    labels = {**{name: label for name, (_, _, label) in learners.items()}, "empty": "缺", "zed": "缺"}
    rows = [[name, labels[name], str(int(labels[name] == "通过"))] for name in sorted(labels)]
    assert [[r[0], r[1], r[3]] for r in table[: len(rows) + 3]] == [
        ["学习者", f"第09课 {BY_NUMBER[9].title}", "通过数"],
        *rows,
        ["交了的通过率", "2/12 17%", ""],
        ["全班通过率", "2/15 13%", ""],
    ]
    assert all(bool(r[2]) == (r[1] != "通过") for r in table[1 : len(rows) + 1])  # 没通过的（连同没交的）都有原因
    assert {r[0]: r[2] for r in table[1 : len(rows) + 1]}["ou"] == "空文件，算作没交"

    report = json.loads(json_path.read_text(encoding="utf-8"))
    assert report["timeout_seconds"] == TIMEOUT and report["memory_mb"] == 1024 and report["jobs"] == JOBS
    assert report["timeout_is"] == "cpu_seconds" and report["confinement"] in ("cgroup v2", "cgroup v1", "none")
    assert report["learner_uid"] == (65534 if sandbox.unavailable_reason() is None else os.getuid())
    assert report["lessons"] == [{"lesson": "09", "title": BY_NUMBER[9].title}]
    assert report["learners"] == sorted(labels)
    by_name = {v["learner"]: v for v in report["verdicts"]}
    assert {n: v["label"] for n, v in by_name.items()} == labels
    # --timeout 是 CPU 秒数：机器忙时一份检查的墙上时间可以更长，但不超过后备上限（60 秒是启动、参考答案与负载的余量）
    assert all(v["seconds"] <= wall_seconds(TIMEOUT) + 60 and v["message"] for v in by_name.values())
    # cpu_seconds 是时间上限算的那个数：死循环的那份用完上限才停下，对的那份远在上限之下；没运行的（语法错误、
    # 没交）是 0；没有 cgroup 时上限只管每个进程各自，合计记不了
    if report["confinement"] == "none":
        assert by_name["he"]["cpu_seconds"] is None
    else:
        assert by_name["he"]["cpu_seconds"] >= TIMEOUT and 0 < by_name["ada"]["cpu_seconds"] < TIMEOUT
    assert by_name["jin"]["cpu_seconds"] == by_name["ou"]["cpu_seconds"] == 0
    assert "SIGSEGV" in by_name["lu"]["message"]
    assert "UTF-8" in by_name["ni"]["message"]
    assert by_name["ou"]["kind"] == "missing" and by_name["ou"]["message"] == "空文件，算作没交"
    assert by_name["ou"]["file"] == "09.py"
    assert "/tmp/" not in by_name["gao"]["message"] and "09.py" in by_name["gao"]["message"]
    assert by_name["ada"]["file"] == "lessons/09/my_exercise.py" and by_name["bai"]["file"] == "09.py"
    # ren 的程序想往外写文件、改写 bai 的练习：沙箱里这些路径都不存在
    assert not (tmp_path / "outside.txt").exists()
    assert (root / "bai" / "09.py").read_text(encoding="utf-8") == RIGHT
    assert "outside.txt" in by_name["ren"]["message"]
    assert set(report["ignored"]) == {
        "empty/：里面没有认得出的练习文件",
        "名单.txt：不是学习者文件夹",
        "ada/notes.py：不是 NN.py 或 lessons/NN/my_exercise.py",
        "zed/99.py：第 99 课不在课表里或还没写好",
        "zed/：里面没有认得出的练习文件",
    }
    out = run.stdout
    assert "找到 15 名学习者" in out and "练习文件 13 份：NN.py 11 份，lessons/NN/my_exercise.py 2 份" in out
    assert "算作没交 1 份（空文件，或与起始代码一字不差）：ou/09.py" in out
    assert "通过率" in out and "2/12 17%" in out and "2/15 13%" in out and "缺" in out
    assert "空文件、原样未改的起始代码也算没交" in out


def test_csv_marks_missing_lessons_and_counts_passes():
    nine, ten = BY_NUMBER[9], BY_NUMBER[10]
    results = {
        ("甲", "09"): Verdict("passed", "全部通过"),
        ("甲", "10"): Verdict("timeout", "超过了 CPU 时间上限 20 秒\n死循环？"),
        ("乙", "10"): Verdict("passed", ""),
    }
    assert report_csv(["甲", "乙"], [nine, ten], results, 1234, "2026-12-03 15:40:00") == (
        f"学习者,第09课 {nine.title},第09课原因,第10课 {ten.title},第10课原因,通过数\r\n"
        "甲,通过,,超时,超过了 CPU 时间上限 20 秒,1\r\n乙,缺,没有交这一课,通过,,1\r\n"
        "交了的通过率,1/1 100%,,1/2 50%,,\r\n全班通过率,1/2 50%,,1/2 50%,,\r\n"
        "\r\n随机用例的种子,1234\r\n批改时间,2026-12-03 15:40:00\r\n"
    )


def test_csv_reasons_are_one_escaped_line_and_a_partial_report_says_so():
    nine = BY_NUMBER[9]
    results = {("甲", "09"): Verdict("wrong", "\n=第 1/28 个用例不对：\x1b[2J结果[3]应为 1\n  输入：…")}
    text = report_csv(["甲", "乙"], [nine], results, 7, "2026-12-03 15:40:00", pending={("乙", "09")})
    visible = Verdict(
        "wrong", "可见检查没通过：\n  09.py 第 9 行（顶层代码）：assert y.shape == (2, 3, 4)\nAssertionError"
    )
    assert reason(visible) == "可见检查没通过：AssertionError"
    rows = text.splitlines()
    assert rows[1] == "甲,答案错误,'=第 1/28 个用例不对：\\x1b[2J结果[3]应为 1,0"
    assert rows[2] == "乙,未批改,批改被中断，没有批改,0"
    assert rows[-1] == "部分报告,批改被中断：1 份已批改，1 份写作“未批改”"


def test_a_crash_reason_is_the_error_not_the_advice():
    """“崩溃”的原因是出错的地方与报错本身（给学习者的那句中文建议在前面，老师要看的是后面）；
    没交回答案就退出了的，说它退出了、最后印了什么。"""
    from courseware.grading.answers import judge
    from courseware.grading.reply import classify_failure

    crash = {
        "status": "crashed",
        "message": "导入出错：\n  09.py 第 2 行（顶层代码）：import solution\n"
        "ModuleNotFoundError: No module named 'solution'",
    }
    kind, message = judge(BY_NUMBER[9], [], [], crash)
    assert kind == "crashed" and message.startswith("代码运行时出了错"), message  # 给学习者的建议还在
    assert reason(Verdict(kind, message)) == "导入出错：ModuleNotFoundError: No module named 'solution'"
    kind, message = judge(
        BY_NUMBER[9],
        [],
        [],
        {"status": "crashed", "message": "第 3 个用例出错：\nTypeError: 'NoneType' object is not subscriptable"},
    )
    assert reason(Verdict(kind, message)) == "第 3 个用例出错：TypeError: 'NoneType' object is not subscriptable"
    kind, message = classify_failure(0, "本课补全练习通过。")
    assert kind == "crashed" and "没有交回答案就退出了" in message, message
    assert reason(Verdict(kind, message)).endswith("它最后印出的是：本课补全练习通过。"), reason(Verdict(kind, message))
    assert (
        reason(Verdict("crashed", "进程被信号 SIGKILL 终止（可能用光了内存）"))
        == "进程被信号 SIGKILL 终止（可能用光了内存）"
    )


def test_empty_files_and_unchanged_starters_count_as_not_handed_in(tmp_path):
    """空文件、原样交回的起始代码（换了 Windows 换行、加了 BOM 与行尾空格也算原样）不算交了：
    不进批改、不进“交了的通过率”的分母；另一种布局里动过的那份照样批改。"""
    starter = (BY_NUMBER[9].folder / "starter.py").read_text(encoding="utf-8")
    files = {
        "empty/09.py": b"",
        "blank/09.py": b"\n  \n",
        "same/09.py": starter.encode("utf-8"),
        "crlf/lessons/09/my_exercise.py": ("\ufeff" + starter.replace("\n", "  \r\n")).encode("utf-8"),
        "both/09.py": RIGHT.encode("utf-8"),
        "both/lessons/09/my_exercise.py": starter.encode("utf-8"),
        "edited/09.py": (starter + "# 我改了一行\n").encode("utf-8"),
    }
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    found = find_submissions(tmp_path, [BY_NUMBER[9]])
    assert found.learners == ["blank", "both", "crlf", "edited", "empty", "same"]
    assert sorted(found.submissions) == [("both", "09"), ("edited", "09")]
    assert found.submissions[("both", "09")].rel == "09.py"
    assert found.untouched == {
        ("blank", "09"): ("09.py", "空文件，算作没交"),
        ("crlf", "09"): ("lessons/09/my_exercise.py", "与起始代码一字不差，算作没交"),
        ("empty", "09"): ("09.py", "空文件，算作没交"),
        ("same", "09"): ("09.py", "与起始代码一字不差，算作没交"),
    }
    results = {("both", "09"): Verdict("passed", ""), ("edited", "09"): Verdict("not_implemented", "")}
    lines = report_csv(found.learners, [BY_NUMBER[9]], results, untouched=found.untouched).splitlines()
    assert lines[1:7] == [  # 没交的三种各有原因：空文件、原样的起始代码，与根本没有文件（见上一个测试）
        "blank,缺,空文件，算作没交,0",
        "both,通过,,1",
        "crlf,缺,与起始代码一字不差，算作没交,0",
        "edited,未完成,,0",
        "empty,缺,空文件，算作没交,0",
        "same,缺,与起始代码一字不差，算作没交,0",
    ]
    assert found.layout_counts() == (5, 2)  # both 的两份都算找到的：lessons/09/my_exercise.py 是原样的起始代码
    assert lines[-5:-3] == ["交了的通过率,1/2 50%,,", "全班通过率,1/6 17%,,"]


def test_reports_are_replaced_atomically(tmp_path):
    csv_path, json_path = tmp_path / "r.csv", tmp_path / "r.json"
    write_reports(str(csv_path), str(json_path), "甲,1\r\n", "{}\n")
    write_reports(str(csv_path), str(json_path), "乙,2\r\n", '{"a": 1}\n')
    assert csv_path.read_bytes() == "\ufeff乙,2\r\n".encode("utf-8")
    assert json.loads(json_path.read_text(encoding="utf-8")) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.json"]  # 没有留下临时文件
    with pytest.raises(ClassroomError, match="写不了报告"):
        write_reports(str(csv_path / "x.csv"), None, "", "")


def test_lesson_ranges():
    assert [l.number for l in parse_lessons("8-10,9")] == [n for n in (8, 9, 10) if BY_NUMBER[n].available]
    for bad in ("abc", "0", "27", "10-8", "9-30"):
        with pytest.raises(ClassroomError):
            parse_lessons(bad)


@pytest.mark.parametrize(
    "args, words",
    [
        (["grade", "/no/such/class"], "不存在"),
        (["grade", "poet"], "不是文件夹"),
        (["grade", ".", "--lessons", "x"], "--lessons 写法不对"),
        (["grade", "tests", "--timeout", "0"], "--timeout 要大于 0"),
        (["grade", "tests", "--memory", "512"], "--memory 512 MiB 太低"),
        (["grade", "tests", "--json", "tests"], "是一个文件夹"),
    ],
)
def test_bad_grade_input_is_a_chinese_message(poet, args, words):
    run = poet(*args)
    assert run.returncode == 2
    assert words in run.stderr and "Traceback" not in run.stdout + run.stderr


def test_reports_never_overwrite_a_learner_file(poet, tmp_path):
    """--csv/--json 给错了（指向一份练习、班级文件夹里、两者同名、后缀不对）：批改之前就拒绝，练习一字不动。"""
    root = tmp_path / "class"
    (root / "zhang").mkdir(parents=True)
    exercise_file = root / "zhang" / "09.py"
    exercise_file.write_text(RIGHT, encoding="utf-8")
    mine = tmp_path / "my_exercise.py"
    mine.write_text(RIGHT, encoding="utf-8")
    for args, words in (
        (["--csv", str(exercise_file)], "要以 .csv 结尾"),
        (["--json", str(mine)], "要以 .json 结尾"),
        (["--csv", str(root / "成绩.csv")], "在班级文件夹"),
        (["--csv", str(tmp_path / "r.csv"), "--json", str(tmp_path / "r.csv")], "同一个文件"),
    ):
        run = poet("grade", str(root), *args)
        assert run.returncode == 2 and words in run.stderr and "Traceback" not in run.stderr, (args, run.stderr)
    assert exercise_file.read_text(encoding="utf-8") == RIGHT and mine.read_text(encoding="utf-8") == RIGHT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class", "my_exercise.py"]


def test_class_without_learners(poet, tmp_path):
    (tmp_path / "empty").mkdir()
    run = poet("grade", str(tmp_path))
    assert run.returncode == 2 and "没有找到学习者" in run.stderr


def test_grade_does_not_follow_symlinks(tmp_path):
    """链接到参考答案或老师的文件、路上经过链接文件夹的提交：列进 ignored，指向的文件不读；同一人的真文件照常批改。"""
    root, base = tmp_path / "class", tmp_path / "base"
    (base / "elsewhere" / "09").mkdir(parents=True)
    (base / "elsewhere" / "09" / "my_exercise.py").write_text(RIGHT, encoding="utf-8")
    (base / "secret.txt").write_text("root:x:0:0\n", encoding="utf-8")
    for name in ("sly", "ok", "via"):
        (root / name).mkdir(parents=True)
    (root / "sly" / "10.py").symlink_to(BY_NUMBER[10].folder / "solution.py")
    (root / "ok" / "02.py").symlink_to(base / "secret.txt")
    (root / "via" / "lessons").symlink_to(base / "elsewhere", target_is_directory=True)
    (root / "via" / "09.py").write_text(RIGHT, encoding="utf-8")
    (root / "carol").symlink_to(base / "elsewhere", target_is_directory=True)  # 整个学习者文件夹是链接
    roster = find_submissions(root, [BY_NUMBER[n] for n in (2, 9, 10)])
    # sly 与 ok 只交了链接：也在名单上（每课“缺”），链接写进 ignored
    assert roster.learners == ["ok", "sly", "via"] and list(roster.submissions) == [("via", "09")]
    assert roster.submissions[("via", "09")].rel == "09.py"
    assert {
        "sly/10.py：符号链接，不批改",
        "ok/02.py：符号链接，不批改",
        "via/lessons：符号链接，不批改",  # 链接的文件夹不列进去：它指向的文件夹里的名字一个也不出现
        "carol：符号链接，不批改",
    } <= set(roster.ignored)
    assert "root:x" not in "".join(roster.ignored)
    assert not [line for line in roster.ignored if "elsewhere" in line or "09/my_exercise" in line]


def test_grade_draws_new_cases_so_a_harvested_answer_table_fails(poet_here, tmp_path):
    """把 ./poet check 的固定用例的答案抄成一张表：check 判通过，grade（每次新的随机种子）判答案错误；
    给回 check 的种子（--seed）就重现出“通过”——种子印在输出与 JSON 里。"""
    from courseware.grading import default_seed, reference
    from courseware.grading.runner import AGAIN_EVERY

    lesson = BY_NUMBER[14]
    _, table = reference(lesson, default_seed(lesson))
    answers = [a for i, a in enumerate(table) for _ in range(2 if i % AGAIN_EVERY == 0 else 1)]  # 照调用的次序
    learner = tmp_path / "klass" / "抄表的人"
    learner.mkdir(parents=True)
    (learner / "14.py").write_text(
        f"ANSWERS = iter({answers!r})\n\n\ndef solve(*args):\n    return next(ANSWERS)\n", encoding="utf-8"
    )
    assert poet_here("check", "14", str(learner / "14.py")).returncode == 0
    report = tmp_path / "g.json"
    done = poet_here("grade", str(tmp_path / "klass"), "--json", str(report), "--jobs", "1")
    data = json.loads(report.read_text(encoding="utf-8"))
    assert done.returncode == 0 and data["verdicts"][0]["kind"] == "wrong", done.stdout
    assert f"--seed {data['seed']}" in done.stdout
    done = poet_here(
        "grade", str(tmp_path / "klass"), "--json", str(report), "--jobs", "1", "--seed", str(default_seed(lesson))
    )
    assert json.loads(report.read_text(encoding="utf-8"))["verdicts"][0]["kind"] == "passed", done.stdout


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="要 Linux 的 /proc")
def test_report_paths_are_tried_before_grading(tmp_path):
    """报告写不进去要在批改之前就说：以 root 运行时 os.access 说 /proc 可写，真建一个文件才知道不行。"""
    (tmp_path / "class").mkdir()
    with pytest.raises(ClassroomError, match=r"写不了报告 /proc/x\.csv：在 /proc 里建不了文件"):
        check_report_paths(tmp_path / "class", "/proc/x.csv", None)
    check_report_paths(tmp_path / "class", str(tmp_path / "成绩.csv"), str(tmp_path / "成绩.json"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class"]  # 试写不留下东西
    for missing in (tmp_path / "new" / "成绩.csv", Path("/nonexistent/dir/x.csv")):  # 不替人建文件夹
        with pytest.raises(ClassroomError, match=f"文件夹 {missing.parent} 不存在"):
            check_report_paths(tmp_path / "class", str(missing), None)
        assert not missing.parent.exists()


def test_grade_details_and_csv_say_why_a_learner_failed(poet_here, tmp_path):
    """老师不用翻 JSON：--details 在成绩表之后逐份列出原因，CSV 每课一列原因；CSV 里有种子、批改时间与课名。"""
    for name, text in (("甲", RIGHT), ("乙", exercise(GUARD + "return words + positions[: words.shape[1]]"))):
        (tmp_path / "klass" / name).mkdir(parents=True)
        (tmp_path / "klass" / name / "09.py").write_text(text, encoding="utf-8")
    report = tmp_path / "成绩.csv"
    done = poet_here("grade", str(tmp_path / "klass"), "--csv", str(report), "--jobs", "1", "--details", "--seed", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    details = re.sub(r"[\s│┃]", "", done.stdout[done.stdout.index("没通过的原因") :])  # 折行、边框不算
    assert "乙" in details and "答案错误" in details and "个用例不对" in details and "甲" not in details
    import csv

    rows = list(csv.reader(report.read_text(encoding="utf-8-sig").splitlines()))
    assert rows[0] == ["学习者", f"第09课 {BY_NUMBER[9].title}", "第09课原因", "通过数"]
    by_name = {row[0]: row for row in rows[1:3]}
    assert by_name["甲"] == ["甲", "通过", "", "1"]
    assert by_name["乙"][1] == "答案错误" and re.match(r"第 \d+/\d+ 个用例不对：结果", by_name["乙"][2]), by_name
    assert ["随机用例的种子", "5"] in rows and any(r[:1] == ["批改时间"] and r[1].startswith("20") for r in rows)


def test_ctrl_c_during_grade_writes_a_partial_report(tmp_path):
    """批改到一半按 Ctrl-C：已经批改的写进 CSV、JSON，还没批改的写作“未批改”，两份报告都标明是部分报告。"""
    import signal
    import subprocess
    import sys
    import uuid

    # b 的检查进程开着的 sleep：看得到它，a 就已经批改完了（--jobs 1，按名字的次序）。
    # 参数要是 sleep 认得的秒数：不是数的参数让 sleep 立刻退出，测试就只能等满 deadline 再按 Ctrl-C
    token = f"{4000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**9:09d}"
    sleeper = f"import subprocess, time\nsubprocess.Popen(['sleep', '{token}'])\nwhile True:\n    time.sleep(1)\n"
    root = tmp_path / "klass"
    for name, text in (("a", RIGHT), ("b", sleeper), ("c", sleeper)):
        (root / name).mkdir(parents=True)
        (root / name / "09.py").write_text(text, encoding="utf-8")
    csv_path, json_path = tmp_path / "r.csv", tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "courseware.cli", "grade", str(root), "--jobs", "1", "--timeout", "60"]
        + ["--csv", str(csv_path), "--json", str(json_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # 后台运行测试时也收得到 Ctrl-C
    )
    deadline = time.monotonic() + 2 * wall_seconds(60)  # a 与 b 的起动各在后备上限之内
    while time.monotonic() < deadline and not _running(token):
        time.sleep(0.3)
    assert _running(token), "b 的检查进程开的 sleep 一直没有出现"
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=wall_seconds(60))
    assert proc.returncode == 130 and "已写出部分报告" in out, out[-2000:]
    data = json.loads(json_path.read_text(encoding="utf-8"))
    kinds = {v["learner"]: v["kind"] for v in data["verdicts"]}
    assert data["partial"] is True and kinds == {"a": "passed", "b": "not_graded", "c": "not_graded"}, kinds
    rows = csv_path.read_text(encoding="utf-8-sig").splitlines()
    assert rows[1].startswith("a,通过") and rows[3].startswith("c,未批改") and rows[-1].startswith("部分报告")


def _running(token: str) -> bool:
    """有没有一个命令行里带 token 的进程。"""
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and token.encode() in (proc / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def test_partial_logs_and_locks_are_never_followed_or_truncated(tmp_path):
    """被杀掉的批改留下的记录原样留着、点得出名字，这次的记录建在下一个空名字上；报告的锁文件是链接或 FIFO 时
    不跟随、不开始；同一份报告的锁在一个批改手里时，另一个拿不到。"""
    from courseware.grading.gradebook import open_partial, reports_locked

    report = tmp_path / "r.json"
    killed = tmp_path / "r.json.partial.jsonl"
    killed.write_text('{"learner": "a"}\n', encoding="utf-8")
    with reports_locked(None, str(report)):
        log = open_partial(None, str(report))
        log.close()
        assert log.earlier == [killed] and log.path == tmp_path / "r.json.partial-2.jsonl" and log.path.exists()
        with pytest.raises(ClassroomError, match="另一个 ./poet grade 正在写同一份报告"):
            with reports_locked(str(tmp_path / "x.csv"), str(report)):
                pass
    assert killed.read_text(encoding="utf-8") == '{"learner": "a"}\n'
    assert not (tmp_path / "r.json.lock").exists() and not (tmp_path / "x.csv.lock").exists()
    victim = tmp_path / "victim.txt"
    victim.write_text("别人的\n", encoding="utf-8")
    (tmp_path / "r.json.lock").symlink_to(victim)
    os.mkfifo(tmp_path / "s.json.lock")
    for name in ("r.json", "s.json"):
        with pytest.raises(ClassroomError, match="锁不了报告"):
            with reports_locked(None, str(tmp_path / name)):
                pass
    assert victim.read_text(encoding="utf-8") == "别人的\n"
