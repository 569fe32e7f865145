"""受限地运行检查子进程：沙箱（sandbox.py）、cgroup 与每个进程的上限（confine.py）、CPU 与墙上时间、
输出大小；Ctrl-C 与 SIGTERM 时一个不落地结束全部检查进程。"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import sandbox
from .confine import Confinement
from .verdict import OUTPUT_LIMIT, SHOWN_CHARS, Limits, wall_seconds

_live_lock = threading.Lock()
_live: set[subprocess.Popen] = set()  # 正在运行的检查子进程：中断时一个不落地结束
_cancelled = threading.Event()
_subreaper = threading.Lock()
_subreaper_set = False


@dataclass
class Run:
    """run_limited 的结果。code：退出码（被后备上限或 CPU 上限结束时为 None）；tail：输出的尾部；
    ran_out："cpu"（CPU 时间用完）、"wall"（墙上时间的后备上限到了）或 None；oom：cgroup 的内存上限杀过进程；
    cpu：这次检查的全部进程用掉的 CPU 秒数（记不了时为 None）；peak：合计用到的最大内存（字节，记不了时为 None）。"""

    code: int | None
    tail: str
    ran_out: str | None = None
    oom: bool = False
    cpu: float | None = None
    peak: int | None = None


def _limit_resources(limits: Limits, confinement: Confinement):
    """检查子进程在 exec 之前做的事：进 cgroup、OOM 时先被挑中（oom_score_adj 1000）、设每个进程的上限
    （内存、输出文件、CPU 秒数、不写 core）。"""
    import resource  # 只有类 Unix 系统有：在这里（fork 之前）才导入，poet 的各个命令在任何系统上都导入得了

    def apply():
        confinement.join()
        with contextlib.suppress(OSError):  # 内存真不够时，内核的 OOM killer 先挑检查进程，不挑批改程序自己
            fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
            os.write(fd, b"1000")
            os.close(fd)
        mem = limits.memory_mb << 20
        cpu = max(1, math.ceil(limits.timeout))
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # 软上限到了是 SIGXCPU，无视它的 1 秒后是 SIGKILL

    return apply


def _become_subreaper() -> None:
    """让沙箱的 1 号进程在外层 bwrap 退出后成为我们的子进程：等到它结束（它要等命名空间里的进程全部结束），
    才算这次检查的进程一个不剩。"""
    global _subreaper_set
    with _subreaper:
        if not _subreaper_set:
            sandbox.libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
            _subreaper_set = True


def _sandbox_init(info: int) -> int | None:
    """从 bwrap 的 --info-fd 读出沙箱 1 号进程在宿主上的 pid。"""
    try:
        data = os.read(info, 4096)
        pid = json.loads(data.decode("utf-8")).get("child-pid")
    except (OSError, ValueError, AttributeError):
        return None
    return pid if type(pid) is int and pid > 0 else None


def _end_sandbox_init(pid: int | None) -> None:
    """结束沙箱的 1 号进程并等它退出：它一退出，内核就杀掉命名空间里剩下的每个进程，并等它们全部结束。"""
    if pid is None:
        return
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:  # 已经结束并被收走了
        return
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if fields.get("PPid", "").strip() != str(os.getpid()) or fields.get("NSpid", "").split()[-1:] != ["1"]:
        return  # 不是我们收养的沙箱 1 号进程（外层 bwrap 已经收走了它，这个 pid 可能已给了别的进程）：不碰
    with contextlib.suppress(ProcessLookupError):  # 它是我们的子进程：在我们 waitpid 之前，这个 pid 不会换人
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def cancel_all() -> None:
    """结束每一个正在运行的检查子进程（连同它们开的子进程），并且不再启动新的。"""
    with _live_lock:
        _cancelled.set()
        for proc in _live:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


def _sigterm(signum, frame):
    raise KeyboardInterrupt


@contextlib.contextmanager
def interruptible():
    """在主线程里：SIGTERM 与 Ctrl-C 一样变成 KeyboardInterrupt；中断时 cancel_all()。

    调用者的 with/finally 随后删掉各自的临时文件夹；检查子进程已被杀掉，所以这一步很快。
    """
    main = threading.current_thread() is threading.main_thread()
    if main:
        _cancelled.clear()
        old = signal.signal(signal.SIGTERM, _sigterm)
    try:
        yield
    except KeyboardInterrupt:
        cancel_all()
        raise
    finally:
        if main:
            signal.signal(signal.SIGTERM, old)


def _child_env(workdir: Path, limits: Limits) -> dict[str, str]:
    """检查子进程的全部环境变量：不从批改程序继承别的。"""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",  # 不传老师的 PATH：里面可能有家目录、仓库里的文件夹
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": str(limits.threads),
        # 等活的计算线程睡下、不空转：--timeout 是学习者的 CPU 秒数，机器忙时空转的线程会把别人的忙算在学习者头上
        # （第 18 课的参考答案在忙的两核上差分检查从 9.5 秒 CPU 降到 0.5 秒）
        "OMP_WAIT_POLICY": "PASSIVE",
        "NO_COLOR": "1",
    }


def _start(
    args: list[str], workdir: Path, limits: Limits, confinement: Confinement, stdin, log, pass_fds
) -> subprocess.Popen:
    """启动检查子进程并登记进 _live（已被取消时抛 KeyboardInterrupt，什么也不启动）。"""
    with _live_lock:
        if _cancelled.is_set():
            raise KeyboardInterrupt
        # fork 之后、子进程进自己的进程组（setsid）之前，子进程里还在跑 Python：这一瞬按下 Ctrl-C，它会印出
        # “Exception ignored in …”的错误栈。所以 fork 时挡住 SIGINT（子进程连同它 exec 的程序一直挡着，反正它已不在
        # 终端的进程组里，中断时由 cancel_all 结束）；父进程登记好子进程之后才解除，这时到的 Ctrl-C 也结束得了它。
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            proc = subprocess.Popen(
                args,
                cwd=workdir,
                env=_child_env(workdir, limits),
                stdin=stdin or subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=pass_fds,
                preexec_fn=_limit_resources(limits, confinement),
            )
            _live.add(proc)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return proc


def _wait(proc: subprocess.Popen, limits: Limits, confinement: Confinement) -> tuple[int | None, str | None]:
    """等 proc 退出，或 CPU 秒数（cgroup 记得了时）、墙上时间的后备上限用完：(退出码或 None, ran_out)。"""
    started = time.monotonic()
    while True:
        try:
            return proc.wait(timeout=0.1), None
        except subprocess.TimeoutExpired:
            pass
        used = confinement.cpu_seconds()
        if used is not None and used > limits.timeout:
            return None, "cpu"
        if time.monotonic() - started > wall_seconds(limits.timeout):
            return None, "wall"


def _end(proc: subprocess.Popen, info_read: int | None, confinement: Confinement) -> None:
    """结束 proc 的进程组、沙箱的 1 号进程与 cgroup 里剩下的进程，并等它们全部结束。"""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # 连同它开的子进程一起结束
    proc.wait()
    _end_sandbox_init(_sandbox_init(info_read) if info_read is not None else None)
    confinement.drain()
    with _live_lock:
        _live.discard(proc)


def _tail(log, code: int | None) -> tuple[int | None, str]:
    """(退出码, 输出的尾部)。输出写满了 OUTPUT_LIMIT 的正常退出按 SIGXFSZ 算。"""
    size = log.seek(0, os.SEEK_END)
    if size >= OUTPUT_LIMIT and code is not None:
        code = -signal.SIGXFSZ  # Python 忽略这个信号，写满上限只会得到 OSError：按输出太多处理
    log.seek(max(0, size - 4 * SHOWN_CHARS))
    return code, log.read().decode("utf-8", errors="replace")


def run_limited(
    args: list[str], workdir: Path, limits: Limits, stdin=None, pass_fds=(), readonly: list[Path] = ()
) -> Run:
    """在 workdir 里运行 args（能用沙箱时关进 bwrap；新的进程组、干净的环境、资源上限，见 confine.py）。

    stdin 是交给子进程的标准输入（一个文件），pass_fds 是额外交给它的文件描述符，
    readonly 是在沙箱里只读可见的文件（见 sandbox.command）。limits.timeout 是 CPU 秒数（cgroup 记得了时是全部进程
    合计，否则每个进程各自）；墙上时间另有 wall_seconds(timeout) 的后备上限。

    Returns:
        Run。返回时这次检查的每个进程都已结束：沙箱的 1 号进程已被收走（它要等命名空间里的进程全部结束），
        cgroup 已经空了、删掉了。

    Raises:
        KeyboardInterrupt: 已被 cancel_all() 取消（Ctrl-C 或 SIGTERM）。
    """
    confinement = Confinement.open(limits.memory_mb)
    info_read = info_write = None
    stack = contextlib.ExitStack()
    try:
        if limits.sandbox and sandbox.unavailable_reason() is None:
            _become_subreaper()
            info_read, info_write = os.pipe()
            seccomp = None
            if (program := sandbox.seccomp_filter()) is not None:
                seccomp = stack.enter_context(tempfile.TemporaryFile())
                seccomp.write(program)
                seccomp.seek(0)
            seccomp_fd = None if seccomp is None else seccomp.fileno()
            args = sandbox.command(
                args, workdir, readonly, info_fd=info_write, hidden=limits.hidden, seccomp_fd=seccomp_fd
            )
            pass_fds = (*pass_fds, info_write, *(() if seccomp_fd is None else (seccomp_fd,)))
        # 输出写进一个没有名字的临时文件：父进程一直拿着它，学习者的代码找不到、删不掉
        with tempfile.TemporaryFile() as log:
            try:
                proc = _start(args, workdir, limits, confinement, stdin, log, pass_fds)
            finally:  # 只留子进程手里那一端：它一结束，_sandbox_init 就读得到文件末尾，不会一直等
                if info_write is not None:
                    os.close(info_write)
                    info_write = None
            try:
                code, ran_out = _wait(proc, limits, confinement)
            finally:
                _end(proc, info_read, confinement)
            if _cancelled.is_set():
                raise KeyboardInterrupt
            if code is not None and abs(code) in (signal.SIGXCPU, 128 + signal.SIGXCPU):
                code, ran_out = None, "cpu"  # 某个进程自己的 CPU 秒数（RLIMIT_CPU）用完了
            code, tail = _tail(log, code)
        used = confinement.cpu_seconds()
        if ran_out is None and used is not None and used > limits.timeout and code != 0:
            ran_out, code = "cpu", None
        return Run(None if ran_out else code, tail, ran_out, confinement.oom_killed(), used, confinement.peak_bytes())
    finally:
        for fd in (info_read, info_write):
            if fd is not None:
                os.close(fd)
        stack.close()
        confinement.close()


_SCRATCH = re.compile(r"poet-(check|probe)-(\d+)-\w+")


def scratch(kind: str) -> tempfile.TemporaryDirectory:
    """一次检查（kind："check" 或 "probe"）的临时工作文件夹。名字里带批改进程的 pid：这个进程被 SIGKILL、
    来不及删它时，下一次批改由 sweep_stale_scratch 认出来删掉。"""
    return tempfile.TemporaryDirectory(prefix=f"poet-{kind}-{os.getpid()}-", ignore_cleanup_errors=True)


def sweep_stale_scratch() -> int:
    """删掉临时文件夹里已经不在了的批改进程留下的工作文件夹（只删自己的、名字对得上的、不是链接的）；返回删了几个。"""
    removed = 0
    root = tempfile.gettempdir()
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        m = _SCRATCH.fullmatch(entry.name)
        with contextlib.suppress(OSError):
            if (
                m
                and entry.is_dir(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_uid == os.geteuid()
                and not os.path.exists(f"/proc/{m.group(2)}")
            ):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed += 1
    return removed


def probe(limits: Limits) -> str | None:
    """批改前的一次试跑：在同样的沙箱与限制下导入 torch、算一次矩阵乘法。
    通过时为 None；否则是中文原因——这是批改设置或本机环境的问题，不能算到学习者头上。"""
    with scratch("probe") as tmp:
        run = run_limited(
            [sys.executable, "-I", "-c", "import torch; print((torch.ones(64, 64) @ torch.ones(64)).sum().item())"],
            Path(tmp),
            limits,
        )
    code, out = run.code, run.tail
    if code == 0 and out.strip().endswith("4096.0"):
        return None
    if code is None:
        return f"检查进程在 {limits.timeout:g} 秒（CPU 时间）内连 torch 都没导入完：请调大 --timeout"
    return (
        f"检查进程在内存上限 {limits.memory_mb} MiB 下连 torch 都运行不了（退出码 {code}）："
        f"请调大 --memory。\n{out.strip()[-500:]}"
    )
