"""捣乱的练习文件（tests/hostile/ 里五十多份，外加几份按字节造的）交给 ./poet grade 与 ./poet check：

批改程序一次也不倒、没有一份假“通过”、诚实学习者的判定不变、仓库与每个学习者文件一字节不差、
没有留下进程、没有留下临时文件夹。沙箱相关的几类（读参考答案、写仓库、写别人的文件夹、后台进程、
网络）只在 bwrap 能用时跑——没有沙箱时它们真的会得逞；退回“按进程隔离”的那条路另有测试（把 bwrap 藏起来）。
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_kit import (
    JOBS,
    LINKS,
    PRIVATE,
    ROOT,
    SECRET,
    TIMEOUT,
    TOKEN,
    Listener,
    add_symlinks,
    assert_fourth_round,
    assert_grader_side,
    assert_second_round,
    assert_third_round,
    build_class,
    confinement_kind,
    kind_in,
    leftover_processes,
    needs_sandbox,
    poet,
    repo_state,
    sigint_as_in_a_terminal,
    snapshot_files,
    solution,
    wait_no_leftovers,
)

from courseware.grading import wall_seconds
from courseware.grading.classroom import shown_name

LONG = 120
"""中途打断的几个测试给的 --timeout（CPU 秒数）：长到打断之前绝不会用完；等待与断言的墙上时间都由它算出。"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """把整个班交给 ./poet grade 一次；各测试检查结果的不同方面。"""
    base = tmp_path_factory.mktemp("hostile")
    root, outside, tmp = base / "class", base / "outside.txt", base / "tmp"
    tmp.mkdir()
    listener = Listener()
    expected = build_class(root, outside, listener.port)
    before_class = snapshot_files(root)
    before_repo = repo_state()
    csv_path, json_path = base / "成绩.csv", base / "成绩.json"
    started = time.monotonic()
    run = poet(
        "grade",
        str(root),
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
        env={"TMPDIR": str(tmp), "COLUMNS": "200"},
    )
    wall = time.monotonic() - started
    left_at_once = leftover_processes()  # 判定给出的那一刻：05_fork_sleepers 开的几十个 sleep 已经一个不剩
    left = wait_no_leftovers()
    listener.close()
    yield dict(
        run=run,
        expected=expected,
        root=root,
        outside=outside,
        tmp=tmp,
        wall=wall,
        left=left,
        left_at_once=left_at_once,
        received=listener.received,
        before_class=before_class,
        before_repo=before_repo,
        csv=csv_path,
        json=json_path,
    )


def verdicts(graded) -> dict[str, dict]:
    cells = json.loads(graded["json"].read_text(encoding="utf-8"))["verdicts"]
    return {v["learner"]: v for v in cells if v["kind"] != "missing"}  # 每人只交了一课


@needs_sandbox
def test_grade_never_falls_over(graded):
    run = graded["run"]
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Traceback" not in run.stdout + run.stderr
    assert "\x1b" not in run.stdout + run.stderr  # 学习者输出里的控制序列没有原样到达终端
    assert len(graded["expected"]) >= 40 + 4
    got = verdicts(graded)
    assert len(got) == len(graded["expected"])
    assert "批改出错" not in {v["label"] for v in got.values()}


@needs_sandbox
def test_empty_file_counts_as_not_handed_in(graded):
    cells = json.loads(graded["json"].read_text(encoding="utf-8"))["verdicts"]
    empty = [v for v in cells if v["learner"] == "05_empty" and v["lesson"] == "05"]
    assert [(v["kind"], v["message"]) for v in empty] == [("missing", "空文件，算作没交")]


@needs_sandbox
def test_no_false_pass_and_honest_verdicts_unchanged(graded):
    got = {name: v["label"] for name, v in verdicts(graded).items()}
    wanted = {}
    for name, expect in graded["expected"].items():
        wanted[shown_name(name)] = expect
    false_passes = [n for n, e in wanted.items() if e != "通过" and got[n] == "通过"]
    assert false_passes == []
    mismatched = {n: (e, got[n]) for n, e in wanted.items() if e != "不通过" and got[n] != e}
    assert mismatched == {}
    honest = [n for n, e in wanted.items() if e == "通过"]
    assert len(honest) == 8 and all(got[n] == "通过" for n in honest)
    assert "│ x\\ " in graded["run"].stdout and "x\\\\" not in graded["run"].stdout


@needs_sandbox
def test_nothing_outside_the_sandbox_changed(graded):
    assert snapshot_files(graded["root"]) == graded["before_class"]  # 每个学习者文件一字节不差，也没有新文件
    assert repo_state() == graded["before_repo"]
    assert not (ROOT / "evil.txt").exists()
    assert not graded["outside"].exists()
    assert graded["received"] == b""  # 网络连不出来
    assert graded["left"] == []  # 没有漏网的进程
    assert graded["left_at_once"] == []  # 而且批改一结束就没有了，不是过几秒才散
    assert list(graded["tmp"].iterdir()) == []  # 没有留下临时文件夹


@needs_sandbox
def test_symlinks_are_listed_not_followed(graded):
    """链接到参考答案、老师的文件或经过链接文件夹的提交：不批改、不读，只列进“未批改”；诚实学习者照常批改。"""
    report = json.loads(graded["json"].read_text(encoding="utf-8"))
    assert {f"{link}：符号链接，不批改" for link in LINKS} <= set(report["ignored"])
    # 只交了链接的人照样在名单上（每课“缺”），可一份也没有批改
    links = {"link_solution", "link_secret", "link_dir"}
    assert not {v["learner"] for v in report["verdicts"] if v["learner"] in links and v["kind"] != "missing"}
    assert SECRET not in graded["json"].read_text(encoding="utf-8") + graded["run"].stdout + graded["run"].stderr
    assert PRIVATE not in graded["json"].read_text(encoding="utf-8") + graded["run"].stdout  # 链接的文件夹里的名字
    assert {
        (v["learner"], v["lesson"])
        for v in report["verdicts"]
        if v["learner"] == "honest_09" and v["kind"] != "missing"
    } == {("honest_09", "09")}


@needs_sandbox
def test_source_rules_and_the_hidden_package(graded):
    """删掉可见检查用捷径、在可见检查那段里挂捷径、拼名字导入课程包：批改程序的源码规则拦下；
    没有源码规则的课直接导入课程包：沙箱里没有它。"""
    got = verdicts(graded)
    assert "layer_norm" in got["13_layer_norm_no_checks"]["message"]
    assert "layer_norm" in got["13_layer_norm_main_patch"]["message"]
    assert "请不要用 poetry_gpt" in got["25_imports_package"]["message"]
    for name in ("25_imports_package_hidden", "24_imports_prosody_hidden"):  # 拼名字：源码规则就拦下
        assert got[name]["label"] == "答案错误" and got[name]["message"].startswith("第 "), got[name]["message"]
    plain = got["05_imports_package_plain"]["message"]  # 没有规则的课：沙箱兜住
    assert "导入不了课程包 poetry_gpt" in plain and "No module named 'poetry_gpt'" in plain, plain


@needs_sandbox
def test_messages_name_real_types_and_escape_controls(graded):
    got = verdicts(graded)
    assert "meta 张量" in got["09_returns_meta"]["message"]
    assert "张量子类" in got["09_tensor_subclass_eq"]["message"]
    assert "太大" in got["09_returns_huge"]["message"]
    assert "ndarray" in got["09_returns_ndarray"]["message"] or "memoryview" in got["09_returns_ndarray"]["message"]
    assert "嵌套太深" in got["05_forge_deep_json"]["message"]
    assert "不合格式" in got["05_forge_status_passed"]["message"]
    assert "\\x1b" in got["05_terminal_escapes"]["message"] and "\x1b" not in got["05_terminal_escapes"]["message"]
    assert "\\ud800" in got["05_returns_lone_surrogate"]["message"]
    assert "第 2 行有一个空字符" in got["05_nul_byte"]["message"]
    assert "1 MiB" in got["05_too_big"]["message"]
    assert "FileNotFoundError" in got["09_reads_solution"]["message"]
    names = set(got)
    assert "name_\\xff\\xfe" in names and "esc_\\x1b[31m_name" in names
    csv_text = graded["csv"].read_bytes().decode("utf-8-sig")
    assert "'=HYPERLINK" in csv_text and "\n=" not in csv_text


@needs_sandbox
def test_second_round_in_grade(graded):
    """第二轮的各类攻击与诚实的学习者在同一次批改里：判定如上，诚实的照样通过（见上面的测试）。"""
    out = graded["run"].stdout
    assert "学习者的代码以 uid 65534 运行" in out and kind_in(out) == confinement_kind()
    assert_second_round(verdicts(graded), kind_in(out))


@needs_sandbox
def test_third_round_in_grade(graded):
    assert_third_round(verdicts(graded))


@needs_sandbox
def test_fourth_round_in_grade(graded):
    assert_fourth_round(verdicts(graded))


@needs_sandbox
def test_grader_side_in_grade(graded):
    """放满密钥环配额的、让批改程序自己的编译印几万行警告、花十几秒 CPU 的：判定如期，终端上一行警告也没有。"""
    assert_grader_side(verdicts(graded), graded["run"].stdout + graded["run"].stderr)


def test_listing_is_bounded_and_never_goes_through_links(tmp_path):
    """学习者的 lessons 是指向老师别处文件夹的链接：那个文件夹里的名字一个也不出现在报告里；放了几千个空文件的学习者
    文件夹只看前 MAX_ENTRIES 项，报告里说没看完，批改程序花的时间与报告的大小不随它变。"""
    from courseware.grading.classroom import MAX_ENTRIES

    root = tmp_path / "class"
    (root / "honest_05").mkdir(parents=True)
    (root / "honest_05" / "05.py").write_bytes(solution("05"))
    (root / "honest_09").mkdir()
    add_symlinks(root, tmp_path)
    many = root / "many"
    (many / "lessons" / "05").mkdir(parents=True)
    for i in range(MAX_ENTRIES + 500):
        (many / f"f{i:05d}.txt").touch()
    report = tmp_path / "r.json"
    run = poet("grade", str(root), "--lessons", "5", "--jobs", "1", "--memory", "1024", "--json", str(report))
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    text = report.read_text(encoding="utf-8")
    assert PRIVATE not in text + run.stdout and "link_dir/lessons：符号链接，不批改" in text
    ignored = json.loads(text)["ignored"]
    mine = [line for line in ignored if line.startswith("many/")]
    assert f"many/：文件太多，只看了前 {MAX_ENTRIES} 项，其余的没有看" in mine and len(mine) <= MAX_ENTRIES + 2


def test_jobs_fit_the_memory_that_exists(tmp_path):
    """--jobs × --memory 放不下这台机器真能用的内存时，减少同时批改的份数并说明；一份都放不下就不开始（退出码 2）。"""
    from courseware.grading.confine import memory_available_mb

    root = tmp_path / "class"
    (root / "a").mkdir(parents=True)
    (root / "a" / "05.py").write_bytes(solution("05"))
    run = poet("grade", str(root), "--jobs", "256", "--memory", "1048576", env={"COLUMNS": "400"})
    assert run.returncode == 2 and "放不下" in run.stderr + run.stdout and "Traceback" not in run.stderr, run.stderr
    available = memory_available_mb()
    assert available is not None
    memory = max(1024, available[0] // 3)
    run = poet("grade", str(root), "--jobs", "64", "--memory", str(memory), env={"COLUMNS": "400"})
    assert run.returncode == 0 and "同时只批改" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]


@needs_sandbox
def test_a_killed_grader_leaves_what_was_graded_and_the_next_run_cleans_up(tmp_path):
    """批改程序被 SIGKILL（小服务器上被 OOM killer 挑中）：已经批完的判定留在 <报告>.partial.jsonl 里；
    下一次批改一开始就删掉它留下的临时工作文件夹、结束并删掉它留下的 cgroup 里的检查进程。"""
    root, tmp = tmp_path / "class", tmp_path / "tmp"
    tmp.mkdir()
    (root / "a").mkdir(parents=True)
    (root / "a" / "05.py").write_bytes(solution("05"))
    (root / "b").mkdir()
    (root / "b" / "05.py").write_text(
        f'import subprocess, time\nsubprocess.Popen(["sleep", "{TOKEN}"])\nwhile True:\n    time.sleep(1)\n',
        encoding="utf-8",
    )
    report = tmp_path / "r.json"
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TMPDIR"] = str(tmp)
    proc = subprocess.Popen(
        [sys.executable, "-m", "courseware.cli", "grade", str(root), "--jobs", "1", "--timeout", str(LONG)]
        + ["--memory", "1024", "--json", str(report)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    partial = Path(f"{report}.partial.jsonl")
    deadline = time.monotonic() + wall_seconds(LONG)  # a 的检查最晚在后备上限结束，b 随即开始
    while not (leftover_processes() and partial.exists() and partial.read_text(encoding="utf-8").strip()):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.3)
    proc.kill()
    proc.wait()
    lines = [json.loads(line) for line in partial.read_text(encoding="utf-8").splitlines()]
    assert [(r["learner"], r["lesson"], r["label"]) for r in lines] == [("a", "05", "通过")]
    assert not report.exists()
    assert [p.name for p in tmp.iterdir() if p.name.startswith(f"poet-check-{proc.pid}-")]  # 来不及删的工作文件夹
    (tmp_path / "c" / "a").mkdir(parents=True)
    (tmp_path / "c" / "a" / "05.py").write_bytes(solution("05"))
    run = poet("grade", str(tmp_path / "c"), "--jobs", "1", "--memory", "1024", env={"TMPDIR": str(tmp)})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert wait_no_leftovers() == []
    assert [p.name for p in tmp.iterdir()] == []
    from courseware.grading.confine import CGROUP_ROOT, _own_cgroup

    # 它的 cgroup 也删掉了（v1 的 pids、cpuacct 常在层级的根上，别的容器也在那里建：只删自己 memory 与 v2 的）
    mine = [CGROUP_ROOT / "memory" / (_own_cgroup("memory") or "/nowhere").lstrip("/")]
    mine += [CGROUP_ROOT / (_own_cgroup(None) or "/nowhere").lstrip("/")]
    assert not [str(d) for base in mine if base.is_dir() for d in base.glob(f"poet-{proc.pid}-*")]


@needs_sandbox
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_interrupting_grade_ends_every_learner_process(tmp_path, how):
    root = tmp_path / "class"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    sleeper = f'import subprocess, time\nkids = [subprocess.Popen(["sleep", "{TOKEN}"]) for _ in range(3)]\nwhile True:\n    time.sleep(1)\n'
    for name in ("a", "b", "c", "d"):
        (root / name).mkdir(parents=True)
        (root / name / "05.py").write_text(sleeper, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TMPDIR"] = str(tmp)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "courseware.cli",
            "grade",
            str(root),
            "--timeout",
            str(LONG),
            "--jobs",
            "2",
            "--memory",
            "1024",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
        preexec_fn=sigint_as_in_a_terminal,
    )
    deadline = time.monotonic() + wall_seconds(LONG)  # 起动慢也在后备上限之内
    while len(leftover_processes()) < 6 and time.monotonic() < deadline:  # 两份同时在跑，各开了 3 个 sleep
        time.sleep(0.3)
    assert len(leftover_processes()) >= 6
    began = time.monotonic()
    proc.send_signal(how)
    out, _ = proc.communicate(timeout=wall_seconds(LONG))
    # 不等各自的时间上限（LONG 秒 CPU，墙上时间的后备上限 wall_seconds(LONG)）：等上限的话墙上时间至少 LONG 秒，
    # 机器再忙，收到信号后收尾也用不了这么久
    assert time.monotonic() - began < LONG
    assert proc.returncode == 130, out[-2000:]
    assert "Traceback" not in out
    assert wait_no_leftovers() == []
    assert list(tmp.iterdir()) == []
