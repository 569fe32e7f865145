"""捣乱的练习文件的测试共用的东西：搭一个班（build_class）、运行 ./poet、看仓库与进程有没有被动过、各轮攻击的期望。

tests/hostile/test_hostile.py 把整个班交给 ./poet grade，test_hostile_check.py 一份一份交给 ./poet check；
分成两个文件，两个测试进程（--dist loadfile）各跑一半。
"""

import hashlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from conftest import poet_in_process

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent  # 捣乱的文件都以课号开头，这个测试文件本身不算
TIMEOUT = 10  # 秒（CPU 时间）；死循环的几份各耗掉这么久。诚实的第 05、09 课练习连导入 torch 约 2–3 秒，机器忙也不多花 CPU 时间
# 不能再短：05_returns_deep（返回嵌套十万层的列表）要 6 秒以上的 CPU 时间才得出“答案错误”，6 秒时判成超时（2026-12-07 试过）
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
    # 编译时每行一条 SyntaxWarning（assert 一个元组，永远为真）：批改程序自己的编译一条也不印到老师的终端。
    # 小的在批改程序的进程里编译；中的（过了 QUICK_BYTES）在受限的子进程里编译、照常运行；将近 1 MiB 的
    # 语法树太大，编译的子进程花光 CPU 时间或节点数超了上限，批改程序自己只花几十毫秒
    "05_warnings_small": (b"assert (1, 2)\n" * 300 + b"def solve(*args):\n    raise NotImplementedError\n", "未完成"),
    "05_warnings_medium": (
        b"assert (1, 2)\n" * 10_000 + b"def solve(*args):\n    raise NotImplementedError\n",
        "未完成",
    ),
    "05_warnings_flood": (
        b"assert (1, 2)\n" * ((1 << 20) // 14 - 10) + b"def solve(*args):\n    return []\n",
        "语法错误",
    ),
}


def _lesson_18_with_solve(body: str) -> bytes:
    """第 18 课的参考答案，solve 的函数体换成 body：模拟断电的 simulated_run、TinyModel 必须与起始文件一字不差
    （源码规则），所以从参考答案里取，不抄一份。"""
    text = solution("18").decode("utf-8")
    start = text.index("    new_run, train = simulated_run(setup, stop, total)\n")
    return (text[:start] + body + text[text.index("\n\n\nclass TinyModel") :]).encode("utf-8")


# 状态留在内存里的副本（.clone()）里，另存一份空的存档、读回来：源码里有 torch.save 与
# torch.load(..., weights_only=True)，旧的规则只看有没有这两个调用。现在批改程序在自己的进程里读回 solve 经
# torch.save 存下的字节，做完第 stop 步时的参数、优化器状态与随机数状态不在里面就不通过。
BUILT["18_clones_and_empty_save"] = (
    _lesson_18_with_solve(
        """    new_run, train = simulated_run(setup, stop, total)
    model, optimizer = new_run()
    losses = train(model, optimizer, 0, stop)
    saved = optimizer.state_dict()
    kept = {
        "weights": {k: v.clone() for k, v in model.state_dict().items()},
        "state": {k: {n: v.clone() if torch.is_tensor(v) else v for n, v in s.items()} for k, s in saved["state"].items()},
        "rng": torch.get_rng_state().clone(),
    }
    buffer = io.BytesIO()
    torch.save({"step": stop}, buffer)
    buffer.seek(0)
    step = torch.load(buffer, weights_only=True)["step"]
    model, optimizer = new_run()
    model.load_state_dict(kept["weights"])
    optimizer.load_state_dict({"state": kept["state"], "param_groups": saved["param_groups"]})
    torch.set_rng_state(kept["rng"])
    return losses + train(model, optimizer, step, total - step)"""
    ),
    "答案错误",
)
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


def confinement_kind() -> str:
    from courseware.grading.confine import available_kind

    return available_kind()


def assert_second_round(got: dict, kind: str) -> None:
    """第二轮的几类攻击的判定：got 是 learner → {"label", "message"}（只查 got 里有的）；
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


def check_each(kinds, root: Path, workspace: Path, timeout: int = TIMEOUT, separate: bool = False) -> dict[str, dict]:
    """把 root 里每份攻击文件（build_class 造的）各交给一次 ./poet check，按给的顺序（密钥环那两份先写后读）。
    返回 learner → {"label", "message", "stdout"}。

    ./poet check 在本测试进程里运行（courseware.cli.main，与命令行同一条路：读文件、在沙箱里的子进程里运行学习者的代码、
    判定、印出判定框）：每份省掉一次启动 Python、导入 torch，几十份就是两分多钟的 CPU 时间。学习者的代码照样在
    沙箱的子进程里运行。separate 为真时每份另开一个 poet 进程：要看批改程序自己往标准错误印了什么时（pytest 在
    本进程里接走 warnings 的警告，编译器的警告就到不了标准错误）。"""
    env = {
        "POET_WORKSPACE": str(workspace),
        "TMPDIR": str(workspace),
        "HOME": str(workspace),
        "COLUMNS": "3000",  # 判定框不折行：消息里的一句话按原样找得到
        "NO_COLOR": "1",
    }
    got = {}
    with pytest.MonkeyPatch.context() as patch:
        if not separate:
            from courseware import catalogue

            for name, value in env.items():
                patch.setenv(name, value)
            from courseware.cli import display

            patch.setattr(tempfile, "tempdir", None)  # 工作文件夹照 TMPDIR 建：gettempdir() 重新读环境变量
            catalogue.workspace.cache_clear()  # workspace() 也重新读 POET_WORKSPACE
            # poet 的 console 在导入时就读过 COLUMNS，本进程里改环境变量不算数：直接定宽
            patch.setattr(display.console, "_width", int(env["COLUMNS"]))
        try:
            for kind in kinds:
                args = ("check", kind[:2], str(root / kind / f"{kind[:2]}.py"), "--timeout", str(timeout))
                run = poet(*args, env=env, timeout=300) if separate else poet_in_process(*args)
                assert "Traceback" not in run.stdout + run.stderr and "\x1b" not in run.stdout, run.stdout + run.stderr
                assert leftover_processes() == [], kind  # 判定给出的那一刻，这次检查的进程已经一个不剩
                head, _, body = run.stdout.partition("╮")
                label = next(
                    l
                    for l in ("通过", "未完成", "答案错误", "崩溃", "超时", "语法错误", "批改出错")
                    if f"：{l}（" in head
                )
                lines = [line.strip().strip("│").strip() for line in body.split("╰")[0].splitlines()]
                got[kind] = {"label": label, "message": "\n".join(l for l in lines if l), "stdout": run.stdout}
        finally:
            if not separate:
                from courseware import catalogue

                catalogue.workspace.cache_clear()
    return got


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
"""第三轮的几类：返回值冒充 raise、改写 runner 瞒过“不改输入”“不共用内存”、源码规则读不到的几条路、
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
        ("09_patch_runner_inplace", "改动了传进来的第 1 个参数"),
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


CHILD_ENV = (
    "HOME",
    "LANG",
    "NO_COLOR",
    "OMP_NUM_THREADS",
    "OMP_WAIT_POLICY",
    "PATH",
    "PWD",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "TMPDIR",
)
"""沙箱里学习者的进程看得到的全部环境变量（limited.py 给的，PWD 是 bwrap 设的）。"""

GRADER_SIDE = (
    "05_keyring_quota",
    "05_reads_environment",
    "05_warnings_small",
    "05_warnings_medium",
    "05_warnings_flood",
)
"""第四轮里落在批改程序自己这一边的几类：放满用户的密钥环配额、让批改程序自己的编译印几万行警告、花十几秒 CPU。
报告文件与名字的几类在 test_hostile_reports.py。"""


def assert_grader_side(got: dict, output: str) -> None:
    """GRADER_SIDE 的判定与原因（只查 got 里有的）；output 是 ./poet grade 或 check 印到终端的全部文字。"""
    expected = {name: expectation(HOSTILE / f"{name}.py") for name in GRADER_SIDE if name not in BUILT}
    expected.update({name: BUILT[name][1] for name in GRADER_SIDE if name in BUILT})
    assert {n: got[n]["label"] for n in GRADER_SIDE if n in got} == {n: expected[n] for n in GRADER_SIDE if n in got}
    assert "SyntaxWarning" not in output and "assert (1, 2)" not in output  # 编译器的警告与它引的源码行
    if "05_keyring_quota" in got:  # 沙箱里密钥环的系统调用一律 ENOSYS（38）：一把也放不进去，老师的配额不受影响
        assert "放进去的钥匙=0 errno=38" in got["05_keyring_quota"]["message"], got["05_keyring_quota"]
    if "05_reads_environment" in got:  # 环境变量只有批改程序给的这几个，PATH 是固定的，老师的一个也不传
        found = got["05_reads_environment"]["message"].rsplit("PATH=", 1)[1]
        assert found.startswith(f"/usr/local/bin:/usr/bin:/bin 变量={sorted(CHILD_ENV)}"), found
    if "05_warnings_flood" in got:
        assert "太长或太复杂" in got["05_warnings_flood"]["message"], got["05_warnings_flood"]


FOURTH_ROUND = {
    "01_softmax_out_script": "aten::_softmax",
    "15_logsumexp_out_script": "aten::logsumexp",
    "15_nll_forward_output": "aten::nll_loss_forward",
    "13_rms_norm_op": "aten::rms_norm",
    "16_fused_adamw_tensor_lr": "aten::_fused_adamw_",
    "17_reload_clip_grad": "torch.nn.utils.clip_grad_norm_",
    "16_reload_adam_adamw": "torch.optim.Adam",
    "09_restores_previous_input": "改动了传进来的第 1 个参数",
    "09_thread_restores_input": "开了线程",
    "20_repairs_shared_cache": "共用内存",
    "08_dict_lookup_beside_product": "0 × inf = nan",
    "18_clones_and_empty_save": "存档里缺了",
}
"""第四轮的几类 → 消息里必有的话：绊线按算子（别的重载、TorchScript、类上的原函数）、按代码（reload 出来的新函数）；
“不改输入”“不共用内存”对照批改程序发出的用例（在下一次调用开头把输入改回去、修好被改写的缓存都没用）；
第 08 课看乘没乘整张表、第 18 课看 torch.save 存下的字节。每一份不碰绊线、不被规则拦下时都会通过
（tests/courseware/test_grading.py 在没有绊线的进程里查过绊线那几份）。"""


def assert_fourth_round(got: dict) -> None:
    """FOURTH_ROUND 的判定都是“答案错误”，消息里写明是哪一道关（只查 got 里有的）。"""
    for name, words in FOURTH_ROUND.items():
        if name in got:
            assert got[name]["label"] == "答案错误" and words in got[name]["message"], (name, got[name])
