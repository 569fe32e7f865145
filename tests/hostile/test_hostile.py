"""捣乱的练习文件（tests/hostile/ 里五十多份，外加几份按字节造的）交给 ./poet grade 与 ./poet check：

批改程序一次也不倒、没有一份假“通过”、诚实学习者的判定不变、仓库与每个学习者文件一字节不差、
没有留下进程、没有留下临时文件夹。沙箱相关的几类（读参考答案、写仓库、写别人的文件夹、后台进程、
网络）只在 bwrap 能用时跑——没有沙箱时它们真的会得逞；退回“按进程隔离”的那条路另有测试（把 bwrap 藏起来）。
"""

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from courseware.grading import sandbox, wall_seconds
from courseware.grading.classroom import shown_name

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent  # 捣乱的文件都以课号开头，这个测试文件本身不算
TIMEOUT = 15  # 秒；死循环的几份各耗掉这么久（机器忙时，诚实的练习也要好几秒）
JOBS = 2
TOKEN = f"{4000 + os.getpid() % 1000}.{int(time.time()) % 100000}"  # 攻击文件开的 sleep 进程的参数：用来找漏网的进程
needs_sandbox = pytest.mark.sandbox  # 没有能用的 bubblewrap 时跳过（tests/conftest.py），CI 里缺了就是错误


def expectation(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# 期望："), path
    return first.removeprefix("# 期望：")


def poet(*args, env=None, timeout=600, **kw):
    full = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "courseware.cli", *args],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        **kw,
    )


def snapshot_files(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


TARGETS = (
    "lessons/05/solution.py",
    "lessons/09/solution.py",
    "courseware/grading/checking.py",
)  # 攻击文件想改的


def repo_state() -> tuple[str, dict[str, str]]:
    """git status 的输出与攻击目标的摘要。在干净的克隆里（CI）批改前后 git status 都应为空；
    几个人同时在改的工作区里，只比较攻击目标（别人的改动不算）。"""
    status = subprocess.run(["git", "status", "--porcelain", "-uall"], cwd=ROOT, capture_output=True, text=True).stdout
    digests = {p: hashlib.sha256((ROOT / p).read_bytes()).hexdigest() for p in TARGETS}
    return status if not status else "（工作区本来就有改动）", digests


def sigint_as_in_a_terminal():
    """子进程里把 Ctrl-C 恢复成默认：在后台（`命令 &`、nohup、有的 CI）运行测试时 shell 让整棵进程树忽略 SIGINT，
    Python 启动时见它被忽略就不装 KeyboardInterrupt，这几个测试要的是终端里按 Ctrl-C 的样子。"""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def leftover_processes() -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if TOKEN in cmd:
                found.append(f"{proc.name}: {cmd}")
    return found


def wait_no_leftovers(seconds: float = 5.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := leftover_processes()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


class Listener:
    """本机的一个 TCP 端口：记下连上来的人发了什么。"""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                self.received += conn.recv(1024)

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def solution(code: str) -> bytes:
    return (ROOT / "lessons" / code / "solution.py").read_bytes()


BUILT = {
    # 第 2 行声明 utf-7：按 UTF-8 读，最后一行是注释；Python 按 utf-7 读，+AAo- 是换行，后面成了调用 F.cross_entropy
    # 的代码（第 1 行不能是中文的“# 期望：”：utf-7 读不了它，所以按字节造）
    "15_utf7_cookie": (
        b"# hostile: a coding cookie other than UTF-8\n# -*- coding: utf-7 -*-\nimport torch\n\n\n"
        b"def solve(logits, targets, mask):\n    return torch.zeros(())\n\n"
        b"# +AAo-import torch.nn.functional as F+ADs- solve = lambda logits, targets, mask: "
        b"F.cross_entropy(logits[mask], targets[mask])\n",
        "语法错误",
    ),
}
"""按字节造的捣乱文件：名字 → (内容, 期望)。"""


def build_class(root: Path, outside: Path, port: int, kinds=None) -> dict[str, str]:
    """班级文件夹：每份捣乱文件一个学习者，外加诚实的学习者与按字节造的文件。返回 学习者 → 期望。"""
    subs = {
        "{{REPO}}": str(ROOT),
        "{{CLASS}}": str(root),
        "{{TOKEN}}": TOKEN,
        "{{PORT}}": str(port),
        "{{OUTSIDE}}": str(outside),
    }
    expected = {}

    def put(learner: str, code: str, data: bytes, expect: str):
        folder = root / learner
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{code}.py").write_bytes(data)
        expected[learner] = expect

    for path in sorted(HOSTILE.glob("[0-9][0-9]_*.py")):
        if kinds is not None and path.stem not in kinds:
            continue
        text = path.read_text(encoding="utf-8")
        for key, value in subs.items():
            text = text.replace(key, value)
        put(path.stem, path.stem[:2], text.encode("utf-8"), expectation(path))
    for name, (data, expect) in BUILT.items():
        if kinds is None or name in kinds:
            put(name, name[:2], data, expect)
    honest05, honest09 = solution("05"), solution("09")
    put("honest_05", "05", honest05, "通过")
    put("honest_09", "09", honest09, "通过")
    put("honest_bom", "05", b"\xef\xbb\xbf" + honest05, "通过")
    put("honest_crlf", "09", honest09.replace(b"\n", b"\r\n"), "通过")
    if kinds is None:
        put("05_nul_byte", "05", honest05.replace(b"\n", b"\n\0", 1), "语法错误")  # 第 2 行开头
        put("05_utf16", "05", honest05.decode("utf-8").encode("utf-16"), "语法错误")
        put("05_gbk", "05", honest05.decode("utf-8").encode("gbk", "replace"), "语法错误")
        put("05_too_big", "05", honest05 + b"#" * (1 << 20), "语法错误")
        (root / "05_empty").mkdir()  # 空文件算作没交：不在 expected 里，见 test_empty_file_counts_as_not_handed_in
        (root / "05_empty" / "05.py").write_bytes(b"")
        # 名字本身捣乱：不是 UTF-8 的文件夹名、像 Excel 公式的名字、带控制字符的名字
        put(os.fsdecode(b"name_\xff\xfe"), "05", honest05, "通过")
        put("=HYPERLINK(1+1)", "05", honest05, "通过")
        put("esc_\x1b[31m_name", "05", honest05, "通过")
        put("x\\", "05", honest05, "通过")  # 名字以反斜杠结尾：屏幕上是 x\，不是 x\\
        add_symlinks(root, outside.parent)
    return expected


SECRET = "SECRET-LINE-只有老师能读"
PRIVATE = "teacher_private_42"
LINKS = ("link_solution/10.py", "link_secret/02.py", "link_dir/lessons", "honest_09/05.py")
"""班里的符号链接（相对班级文件夹）：./poet grade 一个也不跟随，都列为“符号链接，不批改”。"""


def add_symlinks(root: Path, base: Path) -> None:
    """指向参考答案的、指向老师文件的、路上经过一个链接文件夹的，以及诚实学习者文件夹里多出的一个链接。"""
    (base / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    elsewhere = base / "elsewhere" / "09"
    elsewhere.mkdir(parents=True)
    (elsewhere / "my_exercise.py").write_bytes(solution("09"))
    (elsewhere.parent / PRIVATE).mkdir()  # 老师别处的一个文件夹：它的名字不该出现在报告里
    (elsewhere.parent / PRIVATE / "my_exercise.py").write_bytes(solution("09"))
    for name in ("link_solution", "link_secret", "link_dir"):
        (root / name).mkdir()
    (root / "link_solution" / "10.py").symlink_to(ROOT / "lessons" / "10" / "solution.py")
    (root / "link_secret" / "02.py").symlink_to(base / "secret.txt")
    (root / "link_dir" / "lessons").symlink_to(base / "elsewhere", target_is_directory=True)
    (root / "honest_09" / "05.py").symlink_to(root / "honest_05" / "05.py")


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
    assert not {"link_solution", "link_secret", "link_dir"} & set(report["learners"])
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


def confinement_kind() -> str:
    from courseware.grading.confine import available_kind

    return available_kind()


def assert_second_round(got: dict, kind: str) -> None:
    """第二轮的几类攻击（issue 23）的判定：got 是 learner → {"label", "message"}（只查 got 里有的）；
    kind 是这次检查用上的 cgroup（"cgroup v2"、"cgroup v1" 或 "none"）。"""

    def message(name):
        return got[name]["message"] if name in got else None

    if (proc_sys := message("05_writes_proc_sys")) is not None:  # 不是 root；/proc/sys 一个也写不进去
        assert "身份 uid=65534 euid=65534；写进去的=[]" in proc_sys, proc_sys
    if (filled := message("05_fills_every_tmpfs")) is not None:
        written = int(filled.rsplit("合计写进去 ", 1)[1].split(" MiB")[0])
        assert written <= 2 * 64 + 16, filled  # /tmp、工作文件夹各 64 MiB，/dev/shm 16 MiB；/ 与 /dev 只读
    if kind != "none" and "05_memory_in_children" in got:  # 有 cgroup：几个进程合起来也超不过 --memory
        assert "内存超过上限" in message("05_memory_in_children"), message("05_memory_in_children")
    if "05_spins_in_children" in got:  # 机器很忙时也可能是墙上时间的后备上限先到（两种都写明是哪个）
        assert got["05_spins_in_children"]["label"] == "超时"
        assert "CPU 时间用完" in message("05_spins_in_children") or "墙上时间" in message("05_spins_in_children")
    for name in ("09_forge_huge_stride", "09_forge_bad_descriptor"):
        if name in got:
            assert got[name]["label"] == "崩溃" and "张量描述不对" in got[name]["message"], got[name]
    if "05_forge_huge_message" in got:
        assert "文字部分太大" in message("05_forge_huge_message")
    if (long := message("05_long_exception")) is not None:
        assert len(long.encode("utf-8")) < 20000 and "\\u202e" in long and "\\u200b" in long  # 截短了，转义了
        assert "\u202e" not in long and "\u200b" not in long
    if (keys := message("05_keyring_reader")) is not None:
        assert "找到的钥匙=[] 列出=False" in keys, keys


def kind_in(output: str) -> str:
    """check、grade 的输出里说的 cgroup 种类。"""
    flat = output.replace("\n", "")
    return next((k for k in ("cgroup v2", "cgroup v1") if k in flat), "none")


@needs_sandbox
def test_second_round_in_grade(graded):
    """issue 23 的各类攻击与诚实的学习者在同一次批改里：判定如上，诚实的照样通过（见上面的测试）。"""
    out = graded["run"].stdout
    assert "学习者的代码以 uid 65534 运行" in out and kind_in(out) == confinement_kind()
    assert_second_round(verdicts(graded), kind_in(out))


SECOND_ROUND = (
    "05_writes_proc_sys",
    "05_fills_every_tmpfs",
    "05_memory_in_children",
    "05_spins_in_children",
    "09_forge_huge_stride",
    "09_forge_bad_descriptor",
    "05_forge_huge_message",
    "05_long_exception",
    "05_keyring_writer",
    "05_keyring_reader",
    "05_fork_sleepers",
)


def check_each(kinds, root: Path, workspace: Path, timeout: int = TIMEOUT, prefix=(), env=None) -> dict[str, dict]:
    """把 root 里每份攻击文件（build_class 造的）各交给一次 ./poet check，按给的顺序（密钥环那两份先写后读）。
    prefix 放在命令前面（以普通用户运行时用）。返回 learner → {"label", "message", "stdout"}。"""
    got = {}
    for kind in kinds:
        path = root / kind / f"{kind[:2]}.py"
        run = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-m",
                "courseware.cli",
                "check",
                kind[:2],
                str(path),
                "--timeout",
                str(timeout),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=300,
            env={
                **os.environ,
                "POET_WORKSPACE": str(workspace),
                "TMPDIR": str(workspace),
                "HOME": str(workspace),
                "COLUMNS": "3000",
                "NO_COLOR": "1",
                **(env or {}),
            },
        )
        assert "Traceback" not in run.stdout + run.stderr and "\x1b" not in run.stdout, run.stdout + run.stderr
        assert leftover_processes() == [], kind  # 判定给出的那一刻，这次检查的进程已经一个不剩
        head, _, body = run.stdout.partition("╮")
        label = next(
            l for l in ("通过", "未完成", "答案错误", "崩溃", "超时", "语法错误", "批改出错") if f"：{l}（" in head
        )
        lines = [line.strip().strip("│").strip() for line in body.split("╰")[0].splitlines()]
        got[kind] = {"label": label, "message": "\n".join(l for l in lines if l), "stdout": run.stdout}
    return got


@needs_sandbox
def test_second_round_through_check(tmp_path):
    """同样的攻击文件一份一份交给 ./poet check（第二份密钥环文件在第一份之后）：判定与 grade 里一样。"""
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", 9, kinds=set(SECOND_ROUND))
    got = check_each(SECOND_ROUND, root, tmp_path)
    out = got["05_writes_proc_sys"]["stdout"]
    before = out[: out.index("╭")]  # 判定之前：学习者检查自己的文件时不谈沙箱（在 doctor 与 grade 里说）
    assert "uid" not in before and "cgroup" not in before, before
    assert_second_round(got, confinement_kind())


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


THIRD_ROUND = (
    "09_returns_raised_record",
    "09_patch_runner_inplace",
    "20_patch_runner_alias",
    "01_softmin",
    "01_categorical_probs",
    "13_group_norm",
    "15_match_class_pattern",
    "15_getattr_alias",
    "15_utf7_cookie",
    "05_kernel_quotas",
    "05_oom_score",
    "05_vsock_pty_etc",
)
"""issue 39 的几类：返回值冒充 raise、改写 runner 瞒过“不改输入”“不共用内存”、源码规则读不到的几条路、
拿光宿主用户的内核配额。"""


def assert_third_round(got: dict, sandboxed: bool = True) -> None:
    """THIRD_ROUND 的判定与消息里的原因（只查 got 里有的）。sandboxed：这次检查在沙箱里（配额才压得低）。"""

    def message(name):
        return got[name]["message"] if name in got else ""

    expected = {name: expectation(HOSTILE / f"{name}.py") for name in THIRD_ROUND if name not in BUILT}
    expected.update({name: BUILT[name][1] for name in BUILT})
    assert {n: got[n]["label"] for n in THIRD_ROUND if n in got} == {n: expected[n] for n in THIRD_ROUND if n in got}
    assert "应当 raise ValueError" in message("09_returns_raised_record") or "09_returns_raised_record" not in got
    for name, words in (
        ("09_patch_runner_inplace", "再调用一次 solve，结果就不同了"),
        ("20_patch_runner_alias", "共用内存"),
        ("01_softmin", "绊线"),
        ("01_categorical_probs", "distributions"),
        ("13_group_norm", "group_norm"),
        ("15_match_class_pattern", "cross_entropy"),
        ("15_getattr_alias", "cross_entropy"),
        ("15_utf7_cookie", "只接受 UTF-8"),
        ("05_oom_score", "oom_score_adj=1000"),
    ):
        assert name not in got or words in message(name), (name, message(name))
    if sandboxed and "05_vsock_pty_etc" in got:  # 建不了 vsock、拿不到 pty、/etc 读得进去
        assert "vsock=建不了（97） pty=0 etc=0o755" in message("05_vsock_pty_etc"), message("05_vsock_pty_etc")
    # 排队的实时信号每次检查最多 64 个；以 root 批改时 inotify 实例最多 8 个
    if sandboxed and "05_kernel_quotas" in got:
        found = message("05_kernel_quotas")
        inotify = int(found.rsplit("inotify 实例=", 1)[1].split()[0])  # 最后一行是报出来的数（前面是源码行）
        queued = int(found.rsplit("排队的实时信号=", 1)[1].split()[0].rstrip("│"))
        assert queued <= 64 and (inotify <= 8 or os.geteuid() != 0), found


@needs_sandbox
def test_third_round_in_grade(graded):
    assert_third_round(verdicts(graded))


@needs_sandbox
def test_third_round_through_check(tmp_path):
    """同样的几份一份一份交给 ./poet check：判定与 grade 里一样。"""
    root = tmp_path / "class"
    build_class(root, tmp_path / "outside.txt", 9, kinds=set(THIRD_ROUND))
    assert_third_round(check_each(THIRD_ROUND, root, tmp_path))


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
        [sys.executable, "-m", "courseware.cli", "grade", str(root), "--jobs", "1", "--timeout", "120"]
        + ["--memory", "1024", "--json", str(report)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    partial = Path(f"{report}.partial.jsonl")
    deadline = time.monotonic() + 240
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


def test_check_caps_size_and_explains_nul_and_bom(tmp_path):
    honest = solution("05")
    cases = {
        "nul.py": (honest.replace(b"import torch", b"import\0torch"), "空字符（NUL"),
        "big.py": (honest + b"#" * (1 << 20), "1 MiB"),
        "utf16.py": (honest.decode("utf-8").encode("utf-16"), "第 1 行有一个空字符"),
    }
    for name, (data, words) in cases.items():
        (tmp_path / name).write_bytes(data)
        run = poet("check", "5", str(tmp_path / name), env={"POET_WORKSPACE": str(tmp_path)}, timeout=120)
        assert run.returncode == 1 and words in run.stdout and "Traceback" not in run.stdout + run.stderr, run.stdout
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + honest)
    run = poet("check", "5", str(bom), env={"POET_WORKSPACE": str(tmp_path)}, timeout=120)
    assert run.returncode == 0 and "通过" in run.stdout, run.stdout + run.stderr
    run = poet("diff", "5", str(bom), env={"POET_WORKSPACE": str(tmp_path)}, timeout=120)
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
    run = poet(
        "grade",
        str(root),
        "--timeout",
        str(TIMEOUT),
        "--memory",
        "1024",
        "--jobs",
        str(JOBS),
        "--json",
        str(json_path),
        env={"PATH": str(tmp_path / "no-bin"), "COLUMNS": "400"},
    )
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
            "120",
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
    deadline = time.monotonic() + 90
    while len(leftover_processes()) < 6 and time.monotonic() < deadline:  # 两份同时在跑，各开了 3 个 sleep
        time.sleep(0.3)
    assert len(leftover_processes()) >= 6
    began = time.monotonic()
    proc.send_signal(how)
    out, _ = proc.communicate(timeout=120)
    # 不等各自的时间上限（120 秒 CPU，墙上时间的后备上限 370 秒）；90 秒里大部分是给负载的余量
    assert time.monotonic() - began < 90
    assert proc.returncode == 130, out[-2000:]
    assert "Traceback" not in out
    assert wait_no_leftovers() == []
    assert list(tmp.iterdir()) == []


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
    deadline = time.monotonic() + 90
    while len(leftover_processes()) < 3 and time.monotonic() < deadline:
        time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
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


@needs_sandbox
def test_sandbox_as_an_ordinary_user():
    """以普通用户批改（bwrap --unshare-user 那条路）：/proc/sys 一样写不进去、内存盘一样有上限、进程一样收干净，
    诚实的学习者照样通过；输出说明学习者的代码以 uid 65534 运行、用的是哪种上限。"""
    share = Path(tempfile.mkdtemp(prefix="poet-ordinary-", dir="/tmp"))
    try:
        share.chmod(0o755)
        workspace = share / "ws"
        workspace.mkdir(mode=0o777)
        workspace.chmod(0o777)
        root = share / "class"
        kinds = (
            "05_writes_proc_sys",
            "05_fills_every_tmpfs",
            "05_keyring_writer",
            "05_keyring_reader",
            "05_fork_sleepers",
            "05_spins_in_children",
            "09_forge_huge_stride",
        )
        expected = build_class(root, share / "outside.txt", 9, kinds=set(kinds))
        prefix = as_ordinary_user(share)
        got = check_each(kinds, root, workspace, prefix=prefix)
        doctor = subprocess.run(  # ./poet check 不谈沙箱：身份与上限的种类看 doctor（同一个普通用户）
            [*prefix, sys.executable, "-m", "courseware.cli", "doctor"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env={**os.environ, "TMPDIR": str(workspace), "HOME": str(workspace), "COLUMNS": "400"},
        )
        assert "uid 65534（nobody）" in doctor.stdout, doctor.stdout
        assert_second_round(got, kind_in(doctor.stdout))
        report = share / "ws" / "r.json"
        run = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-m",
                "courseware.cli",
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
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=600,
            env={**os.environ, "TMPDIR": str(workspace), "HOME": str(workspace), "COLUMNS": "400"},
        )
        assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr, (
            run.stdout[-3000:] + run.stderr[-3000:]
        )
        assert leftover_processes() == []
        cells = {
            v["learner"]: v
            for v in json.loads(report.read_text(encoding="utf-8"))["verdicts"]
            if v["kind"] != "missing"
        }
        honest = [n for n, e in expected.items() if e == "通过"]
        assert honest and all(cells[n]["label"] == "通过" for n in honest), {n: cells[n] for n in honest}
        assert not [n for n, e in expected.items() if e != "通过" and cells[n]["label"] == "通过"]
        assert_second_round(cells, kind_in(run.stdout))
        if prefix:  # root 跑的测试里，普通用户这一趟确实没有 root 的 cgroup 可用，也确实不是 root
            assert f"uid {os.geteuid()}" not in run.stdout
    finally:
        shutil.rmtree(share, ignore_errors=True)
