"""运行与比较学习者的练习：./poet check、./poet grade 与 ./poet verify 共用这里。

每份练习的检查分三处：

1. 这里（父进程，可信）：读文件（大小上限、NUL、UTF-8、语法），用 ast 查本课 check.py 里的源码规则
   （不许用的捷径，rule_problem），用 check.py 生成随机用例，用参考答案 solution.py 算出应有的输出；
2. 子进程 runner.py（不可信，从工作文件夹里的副本运行；能用 bwrap 时关在 sandbox.py 的沙箱里，
   沙箱里没有 poetry_gpt 包；另有时间、内存、输出上限）：
   先把文件当脚本运行（可见检查），再逐个用例调用学习者的 solve，把结果写回一个只有它拿到的文件描述符；
3. 再回到这里：按 wire.py 的格式严格核对交回的东西，与参考输出逐个比较（整数、字符串精确相等；
   浮点与张量用 allclose），作出判定。

学习者的代码只能影响“它交回了什么答案”：它碰不到用例的生成、参考答案的输出和比较，
交回的东西格式不对、太大、太深、类型奇怪，都只是一个“崩溃”或“答案错误”的判定。
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import importlib.util
import json
import math
import os
import re
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from ..common import os_reason
from ..settings import CHECK_MEMORY_MB, CHECK_TIMEOUT_S
from . import sandbox, wire
from .confine import Confinement
from .catalogue import Lesson
from .messages import not_utf8, safe_text, syntax_message

RUNNER = Path(__file__).with_name("runner.py")
CHILD_FILES = (RUNNER, Path(wire.__file__))  # 复制进工作文件夹的子进程代码：只用标准库与 torch，不需要 poetry_gpt
VERDICTS = {
    "passed": "通过",
    "not_implemented": "未完成",
    "wrong": "答案错误",
    "crashed": "崩溃",
    "timeout": "超时",
    "syntax": "语法错误",
    "error": "批改出错",
}
CHILD_STATUSES = ("not_implemented", "wrong", "crashed", "syntax")  # 子进程能交回的失败判定；“通过”只由这里给
OUTPUT_LIMIT = 32 << 20  # 子进程写的每个文件（输出、答案）最多 32 MiB，再多就写不进去
MAX_FILE_BYTES = 1 << 20  # 超过 1 MiB 的“练习文件”不读、不检查
MESSAGE_CHARS = 4000  # 判定消息最多这么多字符
SHOWN_CHARS = 2000  # 判定消息里最多引用这么多字符的输出
MIN_MEMORY_MB = 1024  # 检查进程内存上限的下限：导入 torch（约 640 MiB 地址空间）并跑完一课的参考答案都够
_reference_lock = threading.Lock()
_live_lock = threading.Lock()
_live: set[subprocess.Popen] = set()  # 正在运行的检查子进程：中断时一个不落地结束
_cancelled = threading.Event()


@dataclass
class Verdict:
    """一次检查的结果。kind 是 VERDICTS 的键；message 是给学习者看的中文；seconds 是用时（秒）。"""

    kind: str
    message: str
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.kind == "passed"

    @property
    def label(self) -> str:
        return VERDICTS[self.kind]


@dataclass
class Limits:
    """子进程的限制：timeout 是 CPU 秒数（学习者的进程自己算了多久；墙上时间另有 wall_seconds(timeout) 的后备上限），
    内存 MiB（cgroup 可用时是这次检查的全部进程连同内存盘合计，否则每个进程各自）、计算线程数；
    sandbox 为 False 时即使有 bwrap 也不用。"""

    timeout: float = CHECK_TIMEOUT_S
    memory_mb: int = CHECK_MEMORY_MB
    threads: int = 2
    sandbox: bool = True


def capped(text: str) -> str:
    """学习者交回的一段文字先截到 MESSAGE_CHARS 个字符（至多 4 倍的 UTF-8 字节），再转义、显示：
    屏幕上、JSON 报告里的消息从不超过十几 KiB，批改程序花在上面的时间与内存与学习者交了多长无关。"""
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " …（后面省略）"


def _limit_resources(limits: Limits, confinement: Confinement):
    """检查子进程在 exec 之前做的事：进 cgroup、设每个进程的上限（内存、输出文件、CPU 秒数、不写 core）。"""
    def apply():
        confinement.join()
        mem = limits.memory_mb << 20
        cpu = max(1, math.ceil(limits.timeout))
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # 软上限到了是 SIGXCPU，无视它的 1 秒后是 SIGKILL
    return apply


def wall_seconds(timeout: float) -> float:
    """墙上时间的后备上限：CPU 时间（timeout）管的是学习者自己算了多久，这个只防睡着不走、等输入的程序。"""
    return 3 * timeout + 10


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


_subreaper = threading.Lock()
_subreaper_set = False


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


def run_limited(args: list[str], workdir: Path, limits: Limits, stdin=None, pass_fds=(),
                readonly: list[Path] = ()) -> Run:
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
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": str(limits.threads),
        "NO_COLOR": "1",
    }
    confinement = Confinement.open(limits.memory_mb)
    info_read = info_write = None
    if limits.sandbox and sandbox.unavailable_reason() is None:
        _become_subreaper()
        info_read, info_write = os.pipe()
        args = sandbox.command(args, workdir, readonly, info_fd=info_write)
        pass_fds = (*pass_fds, info_write)
    ran_out, init = None, None
    # 输出写进一个没有名字的临时文件：父进程一直拿着它，学习者的代码找不到、删不掉
    try:
        with tempfile.TemporaryFile() as log:
            with _live_lock:
                if _cancelled.is_set():
                    raise KeyboardInterrupt
                # fork 之后、子进程进自己的进程组（setsid）之前，子进程里还在跑 Python：这一瞬按下 Ctrl-C，它会印出
                # “Exception ignored in …”的错误栈。所以 fork 时挡住 SIGINT（子进程连同它 exec 的程序一直挡着，反正它已不在
                # 终端的进程组里，中断时由 cancel_all 结束）；父进程登记好子进程之后才解除，这时到的 Ctrl-C 也结束得了它。
                blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    proc = subprocess.Popen(args, cwd=workdir, env=env, stdin=stdin or subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True, pass_fds=pass_fds,
                                            preexec_fn=_limit_resources(limits, confinement))
                    _live.add(proc)
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
                    if info_write is not None:
                        os.close(info_write)
            started = time.monotonic()
            code = None
            try:
                while True:
                    try:
                        code = proc.wait(timeout=0.1)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    used = confinement.cpu_seconds()
                    if used is not None and used > limits.timeout:
                        ran_out = "cpu"
                        break
                    if time.monotonic() - started > wall_seconds(limits.timeout):
                        ran_out = "wall"
                        break
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)  # 连同它开的子进程一起结束
                proc.wait()
                if info_read is not None:
                    init = _sandbox_init(info_read)
                _end_sandbox_init(init)
                confinement.drain()
                with _live_lock:
                    _live.discard(proc)
            if _cancelled.is_set():
                raise KeyboardInterrupt
            if code is not None and abs(code) in (signal.SIGXCPU, 128 + signal.SIGXCPU):
                code, ran_out = None, "cpu"  # 某个进程自己的 CPU 秒数（RLIMIT_CPU）用完了
            size = log.seek(0, os.SEEK_END)
            if size >= OUTPUT_LIMIT and code is not None:
                code = -signal.SIGXFSZ  # Python 忽略这个信号，写满上限只会得到 OSError：按输出太多处理
            log.seek(max(0, size - 4 * SHOWN_CHARS))
            tail = log.read().decode("utf-8", errors="replace")
        used = confinement.cpu_seconds()
        if ran_out is None and used is not None and used > limits.timeout and code != 0:
            ran_out, code = "cpu", None
        return Run(None if ran_out else code, tail, ran_out, confinement.oom_killed(), used, confinement.peak_bytes())
    finally:
        if info_read is not None:
            os.close(info_read)
        confinement.close()


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=None)
def lesson_check(lesson: Lesson):
    """这一课的 check.py 模块（cases，以及可选的 compare、explain、FORBIDDEN、FORBIDDEN_NAMES、source_problem、
    RAISES、FRESH_RESULT、MEMORY_MB）。每个进程只载入一次：
    ./poet grade 在运行任何学习者代码之前就载入，之后被改动的 check.py 进不了批改进程。"""
    return _load(lesson.folder / "check.py", f"check_{lesson.code}")


def default_seed(lesson: Lesson) -> int:
    """差分检查默认的随机种子：每课固定，学习者每次检查拿到同样的用例。"""
    return lesson.number * 1000 + 7


@functools.lru_cache(maxsize=None)
def reference(lesson: Lesson, seed: int):
    """(用例列表, 参考答案在每个用例上的输出)。在可信的父进程里算一次，之后复用。"""
    check = lesson_check(lesson)
    solution = _load(lesson.folder / "solution.py", f"solution_{lesson.code}")
    cases = check.cases(torch.Generator().manual_seed(seed))
    errors = [(name, getattr(builtins, name)) for name in expected_errors(lesson)]

    def expected(args):
        try:
            return solution.solve(*args)
        except tuple(cls for _, cls in errors) as e:  # 这个用例本该 raise（如第 26 课预算太小）
            return wire.raised(next(name for name, cls in errors if isinstance(e, cls)))

    return cases, [expected(args) for args in cases]


def expected_errors(lesson: Lesson) -> tuple[str, ...]:
    """check.py 的 RAISES：某些用例上 solve 应当 raise 的内置异常名（如 ("ValueError",)）；没有时为空。"""
    return tuple(getattr(lesson_check(lesson), "RAISES", ()))


def _short(value) -> str:
    """把用例的输入、输出写成一行短文本；张量只写形状和前几个数。"""
    if isinstance(value, wire.Unsupported):
        return value.what
    if isinstance(value, torch.Tensor):
        head = [round(v, 4) if isinstance(v, float) else v for v in value.flatten()[:6].tolist()]
        more = " …" if value.numel() > 6 else ""
        return f"张量{list(value.shape)} {head}{more}"
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
        return "(" + ", ".join(_short(v) for v in value[:8]) + (", …" if len(value) > 8 else "") + ")"
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + " …"


def _kind(value) -> str:
    return {torch.Tensor: "张量", list: "列表", tuple: "列表", dict: "字典", float: "浮点数", int: "整数",
            str: "字符串", bool: "布尔值"}.get(type(value), type(value).__name__)


def _position(flat: int, shape) -> str:
    """展平后的第 flat 个元素写成“第 5 个”（一维）或“[1, 2]”（多维）。"""
    if len(shape) <= 1:
        return f"第 {flat} 个"
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return f"[{', '.join(map(str, reversed(index)))}]"


def tensor_difference(expected: torch.Tensor, got: torch.Tensor, shown: int = 5, name=None) -> str:
    """形状相同、数值不同的两个张量哪里不同（中文，给判定消息用）。

    布尔与整数张量：有几个位置不同，列出前 shown 个位置与两边的值；浮点张量：一边是 ±inf 或 nan、
    另一边不同的位置照样列出（两边都是 -inf 的位置算相同，不会算出“相差 nan”），其余说最大相差多少。
    name(位置) 给出时，一维张量的位置后面加上它的名字（如第 22 课的“编号 5（，）”）。
    """
    e, g = expected.detach().double().flatten(), got.detach().double().flatten()
    if expected.is_floating_point():
        finite = torch.isfinite(e) & torch.isfinite(g)
        bad = (~finite & ~((e == g) | (e.isnan() & g.isnan()))).nonzero().flatten().tolist()
        if not bad:
            gap = (e - g)[finite].abs().max().item() if finite.any() else 0.0
            return f"最大相差 {gap:.4g}"
        fmt = lambda v: f"{v:.4g}"  # noqa: E731
    else:
        bad = (e != g).nonzero().flatten().tolist()
        fmt = (lambda v: str(bool(v))) if expected.dtype == torch.bool else (lambda v: str(int(v)))  # noqa: E731
    where = [f"{_position(i, expected.shape)}{name(i) if name and expected.dim() == 1 else ''}"
             f"应为 {fmt(e[i].item())}、实际是 {fmt(g[i].item())}" for i in bad[:shown]]
    more = "……" if len(bad) > shown else ""
    return f"{len(bad)} 个位置不同：" + "；".join(where) + more


def compare(expected, got, where: str = "结果") -> str | None:
    """比较参考输出与学习者的输出。相同返回 None，否则返回中文说明哪里不同。

    整数、字符串、布尔精确相等；张量先比形状与 dtype，浮点数与浮点张量再用 allclose（rtol=1e-4, atol=1e-5）；
    列表、元组、字典逐项比较。got 里交不回来的值（wire.Unsupported）写明它的真实类型与原因。
    """
    if isinstance(got, wire.Unsupported):
        return f"{where}应是{_kind(expected)}，实际交回的是 {got.what}"
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            return f"{where}应是张量，实际是 {type(got).__name__}"
        if tuple(got.shape) != tuple(expected.shape):
            return f"{where}的形状应为 {list(expected.shape)}，实际是 {list(got.shape)}"
        if got.dtype != expected.dtype:  # 数值对、类型错（float64 的概率表、int32 的编号）后面的课会接不上
            return f"{where}的 dtype 应为 {expected.dtype}，实际是 {got.dtype}"
        if expected.is_floating_point():
            ok = got.is_floating_point() and torch.allclose(got.double(), expected.double(), rtol=1e-4, atol=1e-5)
        else:
            ok = not got.is_floating_point() and torch.equal(got.long(), expected.long())
        if ok:
            return None
        return f"{where}的数值不对（{tensor_difference(expected, got)}）"
    if isinstance(expected, float):
        if isinstance(got, (int, float)) and not isinstance(got, bool) and math.isclose(got, expected, rel_tol=1e-4, abs_tol=1e-6):
            return None
        return f"{where}应约为 {expected:.6g}，实际是 {_short(got)}"
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)):
            return f"{where}应是列表，实际是 {type(got).__name__}"
        if len(got) != len(expected):
            return f"{where}应有 {len(expected)} 项，实际有 {len(got)} 项"
        for i, (e, g) in enumerate(zip(expected, got)):
            if (reason := compare(e, g, f"{where}第 {i} 项")):
                return reason
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict) or set(map(str, got)) != set(map(str, expected)):
            return f"{where}应是键为 {sorted(map(str, expected))} 的字典"
        got = {str(k): v for k, v in got.items()}
        return next((r for k in expected if (r := compare(expected[k], got[str(k)], f"{where}[{k!r}]"))), None)
    if type(got) is not type(expected) or got != expected:
        return f"{where}应为 {_short(expected)}，实际是 {_short(got)}"
    return None


SYMLINK = "符号链接，不批改"
"""./poet grade 遇到符号链接（或路径经过符号链接）的提交时的原因：链接不跟随，指向的文件一个字节也不读。"""


def read_source(path: Path) -> bytes | str:
    """读一个练习文件（跟随符号链接：./poet check 检查学习者自己指定的文件）。

    Returns:
        文件的字节；读不了（不是普通文件、太大、读不出）时是中文原因。
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # 是个管道也不会卡住
    except OSError as e:
        return f"无法读取这个文件：{os_reason(e)}"
    return _read_fd(fd)


def read_inside(folder: Path, rel: Path) -> bytes | str:
    """读 folder 下的 rel（如 lessons/09/my_exercise.py），一步也不跟随符号链接（./poet grade 用）。

    folder 与 rel 的每一级都用 O_NOFOLLOW 相对上一级打开：检查之后才被换成链接（竞争）也打不开。

    Returns:
        文件的字节；folder 或 rel 的某一级是符号链接时是 SYMLINK；别的读不了的原因是中文说明。
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK  # O_NONBLOCK：是个管道也不会卡住
    *dirs, name = Path(rel).parts
    fd = None
    try:
        fd = os.open(folder, flags | os.O_DIRECTORY)
        for part in dirs:
            inner = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        file_fd = os.open(name, flags, dir_fd=fd)
    except OSError as e:  # 碰上链接时报 ELOOP（有的系统对文件夹报 ENOTDIR）：以 lstat 为准
        return SYMLINK if through_symlink(folder, rel) else f"无法读取这个文件：{os_reason(e)}"
    finally:
        if fd is not None:
            os.close(fd)
    return _read_fd(file_fd)


def through_symlink(folder: Path, rel: Path) -> bool:
    """folder 本身或 folder/rel 路上的某一级（含 rel 本身）是不是符号链接。只 lstat，不跟随。"""
    path = Path(folder)
    links = [path] + [path := path / part for part in Path(rel).parts]
    return any(map(os.path.islink, links))


def _read_fd(fd: int) -> bytes | str:
    """读一个已打开的文件描述符（读完关掉）：普通文件、不超过 MAX_FILE_BYTES 时返回字节，否则是中文原因。"""
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "这不是一个普通文件"
        if st.st_size > MAX_FILE_BYTES:
            return f"文件超过 {MAX_FILE_BYTES >> 20} MiB，不像是一份练习，没有检查"
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            return f"无法读取这个文件：{os_reason(e)}"
    if len(data) > MAX_FILE_BYTES:
        return f"文件超过 {MAX_FILE_BYTES >> 20} MiB，不像是一份练习，没有检查"
    return data


def source_problem(data: bytes, shown: str) -> str | None:
    """文件内容能不能当 Python 运行：NUL、编码、语法。能时为 None，否则是中文原因（带行号）。
    开头的 BOM（Windows 记事本存的“UTF-8 带 BOM”）照常接受。"""
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        return (f"第 {line} 行有一个空字符（NUL，\\0）：Python 文件里不能有它。"
                f"常见原因是文件被存成了 UTF-16，请用 UTF-8 另存后再检查。")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return not_utf8(line)
    try:
        compile(text, shown, "exec", dont_inherit=True)
    except SyntaxError as e:
        return f"第 {e.lineno} 行：{syntax_message(e.msg)}\n{(e.text or '').rstrip()}"
    except (RecursionError, MemoryError):
        return "代码嵌套太深或太长，Python 编译不了"
    except ValueError as e:
        return f"编译不了：{e}"
    return None


_MAIN_GUARD = ast.dump(ast.parse('__name__ == "__main__"', mode="eval").body)
_BY_NAME = {"getattr", "hasattr", "setattr", "delattr", "__import__", "import_module"}  # 第二个参数是名字的调用


@functools.lru_cache(maxsize=None)
def given_checks(lesson: Lesson) -> frozenset[str]:
    """starter.py 底部 if __name__ == "__main__": 里每条语句的 ast.dump（不含行号）：课程给的可见检查。"""
    tree = ast.parse((lesson.folder / "starter.py").read_text(encoding="utf-8"))
    return frozenset(ast.dump(stmt) for node in tree.body
                     if isinstance(node, ast.If) and ast.dump(node.test) == _MAIN_GUARD for stmt in node.body)


def learner_code(lesson: Lesson, tree: ast.Module) -> ast.Module:
    """学习者文件里要受源码规则约束的部分：整个文件，只去掉 if __name__ == "__main__": 里原样保留的
    课程可见检查（它们自己会用到 F.gelu、nn.Linear 这类答案里不许用的名字）。学习者在那里加的语句照样算。"""
    given = given_checks(lesson)
    body = []
    for node in tree.body:
        if isinstance(node, ast.If) and ast.dump(node.test) == _MAIN_GUARD:
            body += [stmt for stmt in node.body if ast.dump(stmt) not in given] + node.orelse
        else:
            body.append(node)
    return ast.Module(body=body, type_ignores=[])


def _bound_names(code: ast.Module) -> set[str]:
    """文件里自己定义的名字（赋值、参数、def、class、import 进来的名字……）。有 import * 时为空集：
    那时任何名字都可能来自别的模块。"""
    bound = set()
    for node in ast.walk(code):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return set()
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound


def used_names(code: ast.Module) -> list[tuple[int, int, str]]:
    """代码用到的外来名字，按出现的位置排：[(行, 列, 名字)]。

    算进来的有：属性名（F.softmax 的 softmax）、import 的模块与名字的每一段（poetry_gpt.metrics 的两段）、
    没在文件里定义过的名字，以及 getattr(x, "名字")、__import__("模块") 这类调用里直接写出的字符串。
    注释、文档字符串、一般的字符串都不算；拼出来的字符串（"poetry" + "_gpt"）也查不到。
    """
    bound = _bound_names(code)
    found = []
    for node in ast.walk(code):
        at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
            found.append((*at, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((*at, node.attr))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            dotted = [getattr(node, "module", None) or ""] + [a.name for a in node.names]  # 照源码的次序
            found += [(*at, part) for name in dotted for part in name.split(".") if part and part != "*"]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in _BY_NAME:
                found += [(*at, part) for arg in node.args
                          if isinstance(arg, ast.Constant) and isinstance(arg.value, str) for part in arg.value.split(".")]
    return sorted(found, key=lambda f: f[:2])  # 同一位置的几个名字保持源码的次序


def rule_problem(lesson: Lesson, text: str) -> str | None:
    """这一课的源码规则（check.py 的 FORBIDDEN 与可选的 source_problem）查学习者的源码：合规时为 None，
    否则是中文原因（带行号）。在可信的父进程里、运行任何学习者代码之前查。

    FORBIDDEN = {片段: 原因}：used_names 里的某个名字（不分大小写）含有这个片段，就是不许用的捷径，
    如 "softmax" 拦下 torch.softmax、F.log_softmax、nn.Softmax。FORBIDDEN_NAMES = {名字: 原因} 只拦一模一样的
    名字（"nn" 拦下 torch.nn，不拦 annotations、channel 这些碰巧含有它的名字）。source_problem(code) 收到 learner_code
    的 ast.Module，查名字以外的规则（如第 08 课的 weight[...]）。
    """
    check = lesson_check(lesson)
    forbidden = getattr(check, "FORBIDDEN", {})
    exact = getattr(check, "FORBIDDEN_NAMES", {})
    custom = getattr(check, "source_problem", None)
    if not forbidden and not exact and custom is None:
        return None
    code = learner_code(lesson, ast.parse(text))
    for line, _, name in used_names(code):
        key = next((k for k in forbidden if k.lower() in name.lower()), None)
        if key is not None:
            return f"第 {line} 行用了 {name}。{forbidden[key]}"
        if name in exact:
            return f"第 {line} 行用了 {name}。{exact[name]}"
    return custom(code) if custom else None


def check_file(lesson: Lesson, path: Path, limits: Limits = Limits(), seed: int | None = None,
               source: bytes | None = None, shown: str | None = None) -> Verdict:
    """检查一份练习：读文件与语法 → 本课的源码规则（rule_problem）→ 可见检查 → 差分检查
    （后两步在同一个受限子进程里）。

    source 给出时用它作文件内容（./poet grade 批改前就读进了内存），否则读 path；
    shown 是消息里代替临时副本路径的名字（默认 path）。limits.timeout 是整次检查的时间上限（秒）。
    学习者文件只会被读，不会被改；任何学习者文件都只会得到一个判定，不会抛异常
    （Ctrl-C 与 SIGTERM 例外：KeyboardInterrupt，子进程与临时文件夹此前都已清理）。
    """
    started = time.monotonic()
    seed = default_seed(lesson) if seed is None else seed
    shown = shown or str(path)

    def verdict(kind: str, message: str) -> Verdict:
        return Verdict(kind, safe_text(message, MESSAGE_CHARS), round(time.monotonic() - started, 2))

    data = read_source(Path(path)) if source is None else source
    if isinstance(data, str):
        return verdict("syntax", data)
    if len(data) > MAX_FILE_BYTES:
        return verdict("syntax", f"文件超过 {MAX_FILE_BYTES >> 20} MiB，不像是一份练习，没有检查")
    if (problem := source_problem(data, shown)):
        return verdict("syntax", problem)
    try:
        problem = rule_problem(lesson, data.decode("utf-8-sig"))
    except (RecursionError, MemoryError):
        problem = "代码嵌套太深，查不了本课的源码规则"
    except Exception as e:  # check.py 的规则自己出错：课程的问题
        return verdict("error", f"check.py 的源码规则出错（请告诉老师，这不是你的错）：{e}")
    if problem:
        return verdict("wrong", problem)

    try:
        with _reference_lock:  # ./poet grade 多线程批改：每课的参考输出只算一次
            cases, expected = reference(lesson, seed)
        cases_data = wire.encode(cases, limit=OUTPUT_LIMIT)
    except Exception as e:  # 课程自身的问题，不是学习者的
        return verdict("error", f"参考答案或 check.py 出错（请告诉老师，这不是你的错）：{e}")
    main = threading.current_thread() is threading.main_thread()
    with (interruptible() if main else contextlib.nullcontext()), \
            tempfile.TemporaryDirectory(prefix="poet-check-", ignore_cleanup_errors=True) as tmp, \
            tempfile.TemporaryFile() as cases_file, tempfile.TemporaryFile() as answers:
        work = Path(tmp)
        copy = work / "exercise.py"
        copy.write_bytes(data)
        child = [work / f.name for f in CHILD_FILES]
        for src, dst in zip(CHILD_FILES, child):
            dst.write_bytes(src.read_bytes())
        cases_file.write(cases_data)
        cases_file.seek(0)
        for f in (copy, *child):
            f.chmod(0o644)  # 沙箱里的学习者是 uid 65534：副本要让它读得到
        run = run_limited([sys.executable, "-I", str(child[0]), str(copy), ",".join(expected_errors(lesson)),
                           str(answers.fileno())], work, limits, stdin=cases_file,
                          pass_fds=(answers.fileno(),), readonly=[copy, *child])
        code, out = run.code, run.tail
        result = None if code is None or run.oom else _read_answers(answers.fileno(), len(cases))

    def named(text: str) -> str:  # 错误栈里写学习者认得的文件名，而不是临时副本的路径
        return text.replace(str(copy), shown)

    if run.oom:  # 先于时间：内存紧张时内核回收页面花的 CPU 也算在检查头上，可能同时用完
        return verdict("crashed", f"内存超过上限：这次检查的全部进程连同写进内存盘的文件合计超过 {limits.memory_mb} MiB")
    if run.ran_out == "cpu":
        return verdict("timeout", f"CPU 时间用完：学习者的进程算了超过 {limits.timeout:g} 秒还没结束（是不是有死循环？）")
    if run.ran_out == "wall":
        return verdict("timeout", f"墙上时间超过 {wall_seconds(limits.timeout):g} 秒还没结束，CPU 时间却没用完"
                                  f"（是不是在 sleep、等输入或等别的进程？）")
    if result is None:
        return verdict(*_classify_failure(code, named(out)))
    if isinstance(result, str):
        return verdict("crashed", result)
    if result["status"] == "ok" and code != 0:
        return verdict(*_classify_failure(code, named(out)))
    kind, message = judge(lesson, cases, expected, result)
    return verdict(kind, named(message))


def judge(lesson: Lesson, cases: list, expected: list, result: dict) -> tuple[str, str]:
    """由子进程交回、已核对过格式的 result 作出判定：(判定, 中文说明)。

    result 是 {"status": 失败判定, "message": ...}，或 {"status": "ok", "outputs": [...], "inputs": [...],
    "shared": [...]}：每个用例的输出要与参考输出相同（本课 check.py 有 compare 时用它；该 raise 的用例
    要 raise 同一种异常），调用之后的参数要与调用之前完全一样；check.py 的 FRESH_RESULT 为真时，
    结果还不能与输入张量共用内存。子进程失败时，check.py 的 explain(消息) 可以在前面补一句说明错在哪里。
    """
    check = lesson_check(lesson)
    if result["status"] != "ok":
        message = result["message"] or "solve 还没有补全"
        explain = getattr(check, "explain", None)
        hint = explain(message) if explain and result["status"] == "crashed" else None
        return result["status"], (f"{hint}\n{message}" if hint else message)
    cmp = getattr(check, "compare", compare)
    fresh = getattr(check, "FRESH_RESULT", False)
    shared = result.get("shared") or [None] * len(cases)
    for i, (args, want, got, after, alias) in enumerate(zip(cases, expected, result["outputs"], result["inputs"],
                                                             shared)):
        try:
            reason = _raise_problem(want, got) if _raised_either(want, got) else cmp(want, got)
        except Exception as e:  # 交回的值合乎格式，比较时却出了错：也只是答案不对
            reason = f"结果无法与参考答案比较（{type(e).__name__}：{e}）"
        if not reason and (k := changed_argument(args, after)) is not None:
            reason = f"solve 改动了传进来的第 {k + 1} 个参数；要返回新的结果，输入保持原样（后面的代码还要用它）"
        if not reason and fresh and alias is not None:
            reason = (f"返回的张量与传进来的第 {alias + 1} 个参数共用内存（返回了它本身或它的视图）："
                      f"要返回一个新张量（比如 torch.zeros_like 新建，或 .clone()），不然调用者改动结果时会连输入一起改掉")
        if reason:
            return "wrong", (f"第 {i + 1}/{len(cases)} 个用例不对：{reason}\n"
                             f"  输入：{_short(args)}\n  应为：{_short(want)}\n  实际：{_short(got)}")
    return "passed", f"可见检查与 {len(cases)} 个随机用例的差分检查全部通过"


def _raised_either(want, got) -> bool:
    return wire.raised_name(want) is not None or wire.raised_name(got) is not None


def _raise_problem(want, got) -> str | None:
    """一边（或两边）是 wire.raised 记号时的比较：同一种异常算对。"""
    expected, actual = wire.raised_name(want), wire.raised_name(got)
    if expected == actual:
        return None
    if actual is None:
        return f"这个用例应当 raise {expected}，solve 却返回了 {_short(got)}"
    return f"这个用例不该 raise，应返回 {_short(want)}，solve 却 raise 了 {actual}"


def _identical(a, b) -> bool:
    """a 与 b 完全相同：类型、形状、dtype 与每个值（NaN 与 NaN 算相同；元组与列表不分，传输时不保留）。"""
    if isinstance(a, torch.Tensor):
        if not (isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype):
            return False
        same = a == b
        if a.is_floating_point():
            same |= a.isnan() & b.isnan()
        return bool(same.all())
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_identical, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_identical(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def changed_argument(before: list, after) -> int | None:
    """调用 solve 之后第一个与调用之前不同的参数的序号（从 0 数）；都没变时为 None。"""
    if not isinstance(after, (list, tuple)) or len(after) != len(before):
        return 0
    return next((k for k, (b, a) in enumerate(zip(before, after)) if not _identical(b, a)), None)


def _read_answers(fd: int, n_cases: int) -> dict | str | None:
    """读子进程交回的答案并严格核对格式。

    Returns:
        None：什么也没交回；str：交回的东西不合格式（中文原因）；
        dict：{"status": "ok", "outputs": [n_cases 个值], "inputs": [n_cases 个参数列表],
        "shared": [n_cases 个 None 或参数序号]}
        或 {"status": 失败判定, "message": str}。
    """
    size = os.fstat(fd).st_size
    if size == 0:
        return None
    try:
        result = wire.decode(os.pread(fd, min(size, OUTPUT_LIMIT + 1), 0), limit=OUTPUT_LIMIT)
    except wire.WireError as e:
        return f"程序交回的结果不合格式：{e}"
    except (RecursionError, MemoryError, ValueError, TypeError, RuntimeError, OverflowError) as e:
        return f"程序交回的结果不合格式（{type(e).__name__}）"
    if type(result) is not dict or type(result.get("status")) is not str:
        return "程序交回的结果不合格式：缺少 status"
    status = result["status"]
    if status == "ok":
        outputs, inputs, shared = result.get("outputs"), result.get("inputs"), result.get("shared")
        if set(result) != {"status", "outputs", "inputs", "shared"} or not all(
                type(v) is list and len(v) == n_cases for v in (outputs, inputs, shared)):
            return f"程序交回的结果不合格式：应有 {n_cases} 个用例的输出与输入"
        if not all(k is None or type(k) is int for k in shared):
            return "程序交回的结果不合格式：shared 不对"
        return result
    if status in CHILD_STATUSES and set(result) == {"status", "message"} and type(result["message"]) is str:
        result["message"] = capped(result["message"])
        return result
    return "程序交回的结果不合格式：status 或字段不对"


def _classify_failure(code: int, output: str) -> tuple[str, str]:
    """进程没有交回结果（或交回后异常退出）时，按退出方式判定。"""
    if code < 0 or code > 128:
        sig = -code if code < 0 else code - 128
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        why = {"SIGXFSZ": "输出太多", "SIGKILL": "可能用光了内存", "SIGSEGV": "可能是递归太深"}.get(name, "")
        return "crashed", f"进程被信号 {name} 终止{('（' + why + '）') if why else ''}"
    if "MemoryError" in output[-500:]:
        return "crashed", "内存超过上限"
    tail = output[-SHOWN_CHARS:].strip()
    return "crashed", f"程序以退出码 {code} 结束，没有完成检查" + (f"：\n{tail}" if tail else "")


def probe(limits: Limits) -> str | None:
    """批改前的一次试跑：在同样的沙箱与限制下导入 torch、算一次矩阵乘法。
    通过时为 None；否则是中文原因——这是批改设置或本机环境的问题，不能算到学习者头上。"""
    with tempfile.TemporaryDirectory(prefix="poet-probe-", ignore_cleanup_errors=True) as tmp:
        run = run_limited([sys.executable, "-I", "-c", "import torch; print((torch.ones(64, 64) @ torch.ones(64)).sum().item())"],
                          Path(tmp), limits)
    code, out = run.code, run.tail
    if code == 0 and out.strip().endswith("4096.0"):
        return None
    if code is None:
        return f"检查进程在 {limits.timeout:g} 秒（CPU 时间）内连 torch 都没导入完：请调大 --timeout"
    return (f"检查进程在内存上限 {limits.memory_mb} MiB 下连 torch 都运行不了（退出码 {code}）："
            f"请调大 --memory。\n{out.strip()[-500:]}")
