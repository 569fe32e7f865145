"""捣乱的练习文件一份一份交给 ./poet check（与 test_hostile.py 的 ./poet grade 同一套期望，见 hostile_kit.py）：

判定与 grade 相同、检查进程被打断或超时时一个不留、退回“按进程隔离”时仍由批改程序判定、进度文件读坏了也不倒、
普通用户身份下的沙箱。
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hostile_kit import (
    FOURTH_ROUND,
    GRADER_SIDE,
    JOBS,
    ROOT,
    SECOND_ROUND,
    THIRD_ROUND,
    TIMEOUT,
    TOKEN,
    Listener,
    assert_fourth_round,
    assert_grader_side,
    assert_second_round,
    assert_third_round,
    build_class,
    check_each,
    confinement_kind,
    kind_in,
    leftover_processes,
    needs_sandbox,
    poet,
    sigint_as_in_a_terminal,
    solution,
    wait_no_leftovers,
)

from courseware.grading import sandbox, wall_seconds


@needs_sandbox
def test_second_round_through_check(tmp_path):
    """同样的攻击文件一份一份交给 ./poet check（第二份密钥环文件在第一份之后）：判定与 grade 里一样。
    死循环的 05_spins_in_children 不在这里等满 TIMEOUT 秒：经 ./poet check 用完 CPU 时间的判定由
    test_cpu_time_not_wall_clock 以 3 秒的上限查（查得更严：写明超过几秒）。"""
    kinds = [kind for kind in SECOND_ROUND if kind != "05_spins_in_children"]
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", 9, kinds=set(kinds))
    got = check_each(kinds, root, tmp_path)
    out = got["05_writes_proc_sys"]["stdout"]
    before = out[: out.index("╭")]  # 判定之前：学习者检查自己的文件时不谈沙箱（在 doctor 与 grade 里说）
    assert "uid" not in before and "cgroup" not in before, before
    assert_second_round(got, confinement_kind())


@needs_sandbox
def test_grader_side_through_check(tmp_path):
    """第四轮落在批改程序自己这一边的几类一份一份交给 ./poet check：判定与 grade 里一样，终端上没有编译器的警告。"""
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", 9, kinds=set(GRADER_SIDE))
    got = check_each(GRADER_SIDE, root, tmp_path, separate=True)  # 看的是 poet 进程自己的标准错误
    assert_grader_side(got, "".join(v["stdout"] for v in got.values()))


@needs_sandbox
def test_class_folder_and_repository_hidden_wherever_they_are(tmp_path, monkeypatch):
    """班级文件夹放在沙箱放进来的文件夹里（.venv 下）：照抄同班的文件照样读不到；仓库在沙箱放进来的文件夹下
    （课程装在 /usr 下那样）：.git 与仓库里别的东西都看不见，仓库里的 .venv 照样能用。"""
    root = Path(tempfile.mkdtemp(prefix="poet-class-", dir=Path(sys.prefix)))
    root.chmod(0o755)  # 学校服务器上常见的、别人读得到的班级文件夹
    try:
        build_class(root, tmp_path / "outside.txt", 9, kinds={"05_reads_classmate"})
        report = tmp_path / "r.json"
        run = poet(
            "grade", str(root), "--timeout", str(TIMEOUT), "--memory", "1024", "--jobs", "1", "--json", str(report)
        )
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        got = {
            v["learner"]: v
            for v in json.loads(report.read_text(encoding="utf-8"))["verdicts"]
            if v["kind"] != "missing"
        }
        assert got["honest_05"]["label"] == "通过"
        assert got["05_reads_classmate"]["label"] == "崩溃", got["05_reads_classmate"]
        assert "No such file" in got["05_reads_classmate"]["message"]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    shown = [str(ROOT), *sandbox._python_dirs()]
    monkeypatch.setattr(sandbox, "_python_dirs", lambda: shown)  # 仓库整个被当作“Python 所在的文件夹”放进沙箱
    look = "import os, sys; print([os.path.exists(p) for p in sys.argv[1:]])"
    paths = [str(ROOT / ".git"), str(ROOT / "README.md"), str(ROOT / "lessons" / "09" / "solution.py"), sys.executable]
    work = tmp_path / "work"
    work.mkdir()
    seen = subprocess.run(
        sandbox.command([sys.executable, "-I", "-c", look, *paths], work), capture_output=True, text=True, timeout=60
    )
    assert seen.stdout.strip() == "[False, False, False, True]", seen.stdout + seen.stderr


@needs_sandbox
def test_third_round_through_check(tmp_path):
    """同样的几份一份一份交给 ./poet check：判定与 grade 里一样。"""
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", 9, kinds=set(THIRD_ROUND))
    assert_third_round(check_each(THIRD_ROUND, root, tmp_path))


@needs_sandbox
def test_cpu_time_not_wall_clock(tmp_path):
    """--timeout 是学习者自己的 CPU 秒数：五个进程一起空转，用完就是“CPU 时间用完”；睡着不走的程序不花 CPU，
    由墙上时间的后备上限（3 × timeout + 10 秒）结束，消息说是墙上时间。"""
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", 9, kinds={"05_spins_in_children"})
    (root / "05_sleeps").mkdir()
    (root / "05_sleeps" / "05.py").write_text("import time\ntime.sleep(1000)\n", encoding="utf-8")
    spin = check_each(["05_spins_in_children"], root, tmp_path, timeout=3)["05_spins_in_children"]
    assert spin["label"] == "超时" and "CPU 时间用完" in spin["message"] and "超过 3 秒" in spin["message"], spin
    started = time.monotonic()
    sleep = check_each(["05_sleeps"], root, tmp_path, timeout=4)["05_sleeps"]  # 导入 torch 就要 1 秒多的 CPU
    assert sleep["label"] == "超时" and "墙上时间超过 22 秒" in sleep["message"], sleep
    assert time.monotonic() - started < wall_seconds(4) + 60  # 后备上限结束它，不等到别的上限；60 秒是启动与负载的余量


def test_check_caps_size_and_explains_nul_and_bom(tmp_path, poet_here):
    honest = solution("05")
    cases = {
        "nul.py": (honest.replace(b"import torch", b"import\0torch"), "空字符（NUL"),
        "big.py": (honest + b"#" * (1 << 20), "1 MiB"),
        "utf16.py": (honest.decode("utf-8").encode("utf-16"), "第 1 行有一个空字符"),
    }
    for name, (data, words) in cases.items():
        (tmp_path / name).write_bytes(data)
        run = poet_here("check", "5", str(tmp_path / name))
        assert run.returncode == 1 and words in run.stdout and "Traceback" not in run.stdout + run.stderr, run.stdout
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + honest)
    run = poet_here("check", "5", str(bom))
    assert run.returncode == 0 and "通过" in run.stdout, run.stdout + run.stderr
    run = poet_here("diff", "5", str(bom))
    assert run.returncode == 0 and "一字不差" in run.stdout, run.stdout + run.stderr


@needs_sandbox
@pytest.mark.parametrize(
    "kind",
    [
        "05_forge_frame_ok_garbage",
        "05_atexit_forge",
        "09_reads_solution",
        "05_terminal_escapes",
        "05_detached_grandchild",
        "24_imports_prosody_hidden",
    ],
)
def test_check_command_with_hostile_files(tmp_path, kind):
    listener = Listener()
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", listener.port, kinds={kind})
    path = root / kind / f"{kind[:2]}.py"
    before = path.read_bytes()
    run = poet(
        "check",
        kind[:2],
        str(path),
        "--timeout",
        str(TIMEOUT),
        env={"POET_WORKSPACE": str(tmp_path), "TMPDIR": str(tmp_path)},
        timeout=120,
    )
    listener.close()
    assert run.returncode == 1 and "Traceback" not in run.stdout + run.stderr and "\x1b" not in run.stdout
    assert path.read_bytes() == before and wait_no_leftovers() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class"]  # 临时文件夹都删掉了


FALLBACK_KINDS = {
    "05_forge_frame_ok_garbage",
    "05_forge_status_passed",
    "05_atexit_forge",
    "09_patch_torch_compare",
    "09_tensor_subclass_eq",
    "05_returns_deep",
    "05_terminal_escapes",
    "09_forge_stride_bomb",
    "25_imports_package",
    *THIRD_ROUND,
}  # 源码规则在父进程里查，两次调用的输出由批改程序比较，绊线由 runner 换上：没有沙箱也照样拦下


def test_fallback_without_bwrap_still_decides_alone(tmp_path):
    """PATH 里没有 bwrap：退回按进程隔离，说一次；判定照样只由批改程序作出，伪造的结果照样无效。"""
    listener = Listener()
    root = tmp_path / "class"
    expected = build_class(root, tmp_path / "outside.txt", listener.port, kinds=FALLBACK_KINDS)
    listener.close()
    json_path = tmp_path / "r.json"
    run = poet(*grade_args(root, json_path), env={"PATH": str(tmp_path / "no-bin"), "COLUMNS": "400"})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert run.stdout.count("没有 bubblewrap") == 1 and "按进程隔离" in run.stdout
    cells = {
        v["learner"]: v for v in json.loads(json_path.read_text(encoding="utf-8"))["verdicts"] if v["kind"] != "missing"
    }
    got = {name: cell["label"] for name, cell in cells.items()}
    assert {n: got[n] for n, e in expected.items() if e == "通过"} == {
        n: "通过" for n, e in expected.items() if e == "通过"
    }
    assert [n for n, e in expected.items() if e != "通过" and got[n] == "通过"] == []
    assert_third_round(cells, sandboxed=False)
    doctor = poet("doctor", env={"PATH": str(tmp_path / "no-bin"), "COLUMNS": "400"})
    assert "没有 bubblewrap" in doctor.stdout


@pytest.mark.parametrize("content", [b'{"05": ', b"\xff\xfe\x00", b"[1, 2]"])
def test_unreadable_progress_is_kept_aside(tmp_path, content):
    (tmp_path / ".progress.json").write_bytes(content)
    run = poet("progress", env={"POET_WORKSPACE": str(tmp_path)}, timeout=120)
    assert run.returncode == 0 and run.stderr.count("警告：进度文件") == 1, run.stderr
    backups = [p for p in tmp_path.iterdir() if p.name.startswith(".progress.json.broken-")]
    assert len(backups) == 1 and backups[0].read_bytes() == content


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "huge"])
def test_progress_that_is_not_a_small_regular_file_is_kept_aside(tmp_path, kind):
    """管道不会让 ./poet progress 卡住，指向 /dev/zero 的链接不会读个没完，超过 1 MiB 的不读：都另存，从头记起。"""
    path = tmp_path / ".progress.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    else:
        path.write_text(json.dumps({"05": {"status": "passed"}, "pad": "x" * (2 << 20)}), encoding="utf-8")
    run = poet("progress", env={"POET_WORKSPACE": str(tmp_path)}, timeout=60)
    assert run.returncode == 0 and run.stderr.count("警告：进度文件") == 1, run.stderr
    assert "Traceback" not in run.stderr and "MemoryError" not in run.stderr
    assert [p.name.startswith(".progress.json.broken-") for p in tmp_path.iterdir()] == [True]


def test_invisible_characters_in_a_progress_key_are_escaped(tmp_path):
    key = "0\u202e5\u2028\u200b\ufeff\u00ad\u061c"
    (tmp_path / ".progress.json").write_text(
        json.dumps({key: {"status": "passed"}}, ensure_ascii=False), encoding="utf-8"
    )
    run = poet("progress", env={"POET_WORKSPACE": str(tmp_path)}, timeout=60)
    assert run.returncode == 0 and "警告：进度文件" in run.stderr
    assert not set("\u202e\u2028\u200b\ufeff\u00ad\u061c") & set(run.stderr), ascii(run.stderr)
    assert "\\u202e" in run.stderr and "\\u200b" in run.stderr


def test_progress_folder_is_a_clear_error(tmp_path):
    (tmp_path / ".progress.json").mkdir()
    run = poet("progress", env={"POET_WORKSPACE": str(tmp_path)}, timeout=120)
    assert run.returncode == 2 and "是一个文件夹" in run.stderr and "Traceback" not in run.stderr


@needs_sandbox
def test_interrupting_check_ends_the_learner_process(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    path = tmp_path / "05.py"
    path.write_text(
        f'import subprocess, time\nkids = [subprocess.Popen(["sleep", "{TOKEN}"]) for _ in range(3)]\n'
        f"while True:\n    time.sleep(1)\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(TMPDIR=str(tmp), POET_WORKSPACE=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "courseware.cli", "check", "5", str(path), "--timeout", "120"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        errors="replace",
        preexec_fn=sigint_as_in_a_terminal,
    )
    deadline = time.monotonic() + wall_seconds(120)  # 机器再忙，起动也在后备上限之内
    while len(leftover_processes()) < 3 and time.monotonic() < deadline:
        time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=wall_seconds(120))
    assert proc.returncode == 130 and "Traceback" not in out, out[-2000:]
    assert wait_no_leftovers() == [] and list(tmp.iterdir()) == []


ORDINARY = "poet-sandbox-test"
"""以 root 运行测试时（CI），test_sandbox_as_an_ordinary_user 以这个普通用户再跑一遍（没有就用 useradd 建）。"""


def as_ordinary_user(share: Path) -> list[str]:
    """以普通用户运行命令的前缀。以普通用户运行测试时是空的（整个测试本来就是普通用户）。

    以 root 运行时：建好 ORDINARY，再用 bwrap 给它一个视图——仓库、Python 与 .venv 所在的、别人进不去的
    文件夹（如 0700 的 /root）在这个视图里换成一块 0755 的内存盘，里面只放回仓库、Python 与 .venv 本身；
    宿主上的权限一个也不改。在 CI（CI=true）里做不到就是失败，不是跳过。
    """
    if os.geteuid() != 0:
        return []

    def fail(why):
        (pytest.fail if os.environ.get("CI") else pytest.skip)(why)

    if subprocess.run(["id", "-u", ORDINARY], capture_output=True).returncode != 0:
        made = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", ORDINARY],
            capture_output=True,
            text=True,
        )
        if made.returncode != 0:
            fail(f"建不了普通用户 {ORDINARY}：{made.stderr.strip()}")
    uid = int(subprocess.run(["id", "-u", ORDINARY], capture_output=True, text=True).stdout)
    gid = int(subprocess.run(["id", "-g", ORDINARY], capture_output=True, text=True).stdout)
    needed = sorted({str(ROOT), *sandbox._python_dirs(), str(share)})
    view = ["bwrap", "--dev-bind", "/", "/"]
    covered: list[Path] = []
    for path in map(Path, needed):
        closed = next((a for a in reversed(path.parents) if a != Path("/") and not os.stat(a).st_mode & 0o001), None)
        if closed is None or any(closed.is_relative_to(c) for c in covered):
            continue
        covered.append(closed)
        view += ["--perms", "0755", "--tmpfs", str(closed)]
        for inner in needed:
            if Path(inner).is_relative_to(closed) and Path(inner) != closed:
                for mid in reversed(Path(inner).parents):
                    if mid.is_relative_to(closed) and mid != closed:
                        view += ["--perms", "0755", "--dir", str(mid)]
                view += ["--bind", inner, inner]
    switch = shutil.which("setpriv")
    if switch is None:
        fail("没有 setpriv（util-linux），换不到普通用户")
    return view + ["--", switch, f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]


@contextmanager
def ordinary_share():
    """/tmp 下一个普通用户也进得去的文件夹 (share, share/ws)：班级文件夹放在 share 里，ws 是普通用户可写的工作区。"""
    share = Path(tempfile.mkdtemp(prefix="poet-ordinary-", dir="/tmp"))
    try:
        share.chmod(0o755)
        workspace = share / "ws"
        workspace.mkdir(mode=0o777)
        workspace.chmod(0o777)
        yield share, workspace
    finally:
        shutil.rmtree(share, ignore_errors=True)


def poet_as_ordinary_user(share: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess:
    """以普通用户运行 ./poet（以 root 运行测试时经 as_ordinary_user 换成 ORDINARY），工作区与 HOME 都是 workspace。"""
    return subprocess.run(
        [*as_ordinary_user(share), sys.executable, "-m", "courseware.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=600,
        env={**os.environ, "TMPDIR": str(workspace), "HOME": str(workspace), "COLUMNS": "400"},
    )


def grade_args(root: Path, report: Path) -> list[str]:
    """./poet grade 班级文件夹，上限与这个文件里别的批改相同，JSON 报告写到 report。"""
    return [
        "grade",
        str(root),
        "--timeout",
        str(TIMEOUT),
        "--memory",
        "1024",
        "--jobs",
        str(JOBS),
        "--json",
        str(report),
    ]


def graded_cells(report: Path) -> dict:
    """JSON 报告里交了的每一份：学习者名 → 判定。"""
    verdicts = json.loads(report.read_text(encoding="utf-8"))["verdicts"]
    return {v["learner"]: v for v in verdicts if v["kind"] != "missing"}


@needs_sandbox
def test_sandbox_as_an_ordinary_user():
    """以普通用户批改（bwrap --unshare-user 那条路）：/proc/sys 一样写不进去、内存盘一样有上限、进程一样收干净，
    诚实的学习者照样通过；第四轮的绊线、快照与存档的判定不看身份；输出说明学习者的代码以 uid 65534 运行、
    用的是哪种上限。
    只走 ./poet grade 一趟，第二轮与第四轮的几份同在一个班里：check 与 grade 把学习者的代码放进沙箱的是同一个
    run_limited，逐份 check 那条路由 test_second_round_through_check 走（再以普通用户逐份 check 一遍，整套测试要多
    四十秒，查到的还是同一件事）。死循环的 05_spins_in_children 另以 ./poet check、3 秒的上限交一次：普通用户多半
    没有 cgroup，五个进程各自用满 --timeout，在班里等满 TIMEOUT 就是五十秒的 CPU 时间。"""
    with ordinary_share() as (share, workspace):
        root = share / "class"
        kinds = (
            "05_writes_proc_sys",
            "05_fills_every_tmpfs",
            "05_keyring_writer",
            "05_keyring_reader",
            "05_keyring_quota",
            "05_fork_sleepers",
            "09_forge_huge_stride",
            *FOURTH_ROUND,
        )
        expected = build_class(root, share / "outside.txt", 9, kinds={*kinds, "05_spins_in_children"})
        doctor = poet_as_ordinary_user(share, workspace, "doctor")  # ./poet check 不谈沙箱：身份与上限的种类看 doctor
        assert "uid 65534（nobody）" in doctor.stdout, doctor.stdout
        spin = poet_as_ordinary_user(
            share, workspace, "check", "05", str(root / "05_spins_in_children" / "05.py"), "--timeout", "3"
        )
        assert spin.returncode == 1 and "超时（" in spin.stdout and "Traceback" not in spin.stdout + spin.stderr, (
            spin.stdout[-3000:] + spin.stderr[-3000:]
        )
        assert "CPU 时间用完" in spin.stdout or "墙上时间" in spin.stdout, spin.stdout  # 写明是哪一个上限到了
        shutil.rmtree(root / "05_spins_in_children")
        del expected["05_spins_in_children"]
        run = poet_as_ordinary_user(share, workspace, *grade_args(root, workspace / "r.json"))
        assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr, (
            run.stdout[-3000:] + run.stderr[-3000:]
        )
        assert leftover_processes() == []
        cells = graded_cells(workspace / "r.json")
        honest = [n for n, e in expected.items() if e == "通过"]
        assert set(honest) == {"honest_05", "honest_09", "honest_bom", "honest_crlf"}
        assert all(cells[n]["label"] == "通过" for n in honest), {n: cells[n] for n in honest}
        assert not [n for n, e in expected.items() if e != "通过" and cells[n]["label"] == "通过"]
        assert set(kinds) <= set(cells)
        assert_second_round(cells, kind_in(run.stdout))
        assert_grader_side(cells, run.stdout + run.stderr)  # 普通用户的密钥环配额也没被占去一把
        assert_fourth_round(cells)
        if as_ordinary_user(share):  # root 跑的测试里，普通用户这一趟确实没有 root 的 cgroup 可用，也确实不是 root
            assert f"uid {os.geteuid()}" not in run.stdout


@needs_sandbox
def test_fourth_round_through_check(tmp_path):
    """第四轮的几份一份一份交给 ./poet check：判定与 grade 里一样。"""
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", 9, kinds=set(FOURTH_ROUND))
    assert_fourth_round(check_each(list(FOURTH_ROUND), root, tmp_path))
