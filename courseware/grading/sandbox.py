"""用 bubblewrap（bwrap）把检查学习者练习的子进程关进沙箱。

沙箱里看得见的只有：系统的程序与库（/usr 等，只读）、Python 与虚拟环境（只读）、这次检查自己的
工作文件夹、/tmp 与 /dev/shm（各是一块有大小上限的内存盘，检查结束就消失；工作文件夹里只读地放着练习的副本和
runner.py、wire.py 两个副本——它们只用标准库和 torch）。/ 与 /dev（只有几个设备文件）是只读的。
课程包 poetry_gpt（里面有 prosody.quatrain_rhyme 这样的参考实现）与 courseware、data/、lessons/（参考答案 solution.py、
check.py）、.git、班级文件夹、家目录都不存在于沙箱里：学习者的代码 import poetry_gpt 会失败。
另外：新的 PID 命名空间（看不见、也杀不了沙箱外的进程）、没有网络、新的会话（碰不到老师的终端）、
没有任何特权（capabilities），并且**学习者的代码从不以 root 运行**：它在这次检查自己的用户命名空间里，
以 uid/gid 65534（nobody）运行——

- 批改程序以普通用户运行时：bwrap --unshare-user --uid 65534，内核眼里它就是老师这个普通用户；
- 批改程序以 root 运行时（CI、Docker、学校服务器）：子进程先进一个新建的用户命名空间（0 与 65534 两个
  uid 原样映射），bwrap 在里面搭好挂载，runner 启动之前降到 65534，内核眼里它是 nobody，不是 root。
  所以 /proc/sys（kernel.core_pattern、vm.* ……）对它只读；用户密钥环也跟着命名空间走，每次检查一个新的。

没有 bwrap（macOS、精简容器）或 bwrap 在这台机器上用不了时，unavailable_reason() 给出原因，
检查退回“按进程隔离”：子进程照样有时间、内存、输出上限，判定照样只由批改程序作出，
但学习者的代码能读写当前用户能碰到的文件，也能留下脱离了进程组的后台进程。
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import courseware
import poetry_gpt
from poetry_gpt.common import DEFAULT_DATA, ROOT

from .confine import MAX_PROCESSES

SCRATCH_BYTES = 64 << 20  # 工作文件夹与 /tmp 各自的大小上限：写满了只是学习者自己的写入失败
SHM_BYTES = 16 << 20  # /dev/shm 的大小上限
SANDBOX_UID = 65534  # 学习者的代码在沙箱里的 uid 与 gid（nobody/nogroup）
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
)
CLONE_NEWUSER = 0x10000000
# 沙箱里最先运行的几行（可信：学习者的代码还没加载）：root 情形下降到 SANDBOX_UID，再限进程数，然后 exec 真正的命令。
# RLIMIT_NPROC 在用户命名空间里只数这次检查自己的进程。排队的实时信号（RLIMIT_SIGPENDING）与 POSIX 消息队列
# （RLIMIT_MSGQUEUE）也记在外层的用户头上（以 root 批改时就是宿主的 root）：压到很低，学习者拿不光老师的配额
PRELUDE = (
    "import os, resource, sys\n"
    "uid, nproc = int(sys.argv[1]), int(sys.argv[2])\n"
    "if os.getuid() != uid:\n"
    "    os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)\n"
    "resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))\n"
    "resource.setrlimit(resource.RLIMIT_SIGPENDING, (64, 64))\n"
    "resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)
libc = ctypes.CDLL(None, use_errno=True)


def bwrap_path() -> str | None:
    """PATH 里的 bwrap；没有时为 None。"""
    return shutil.which("bwrap")


def as_root() -> bool:
    """批改程序是不是以 root 运行：是的话由 enter_user_namespace 在 bwrap 之前建用户命名空间。"""
    return os.geteuid() == 0


def _python_dirs() -> list[str]:
    """运行 Python 需要的文件夹：解释器安装位置与虚拟环境（含 site-packages）。"""
    dirs = {
        sys.base_prefix,
        sys.base_exec_prefix,
        sys.prefix,
        sys.exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
    }
    return sorted(d for d in dirs if d and os.path.isdir(d))


def hidden_dirs(extra=()) -> list[Path]:
    """沙箱里不许看见的文件夹：整个仓库（连同 .git）、课程的两个包 poetry_gpt（参考实现）与 courseware
    （非可编辑安装时都在 site-packages 里）、
    data/ 与 lessons/（参考答案、check.py），再加上 extra（./poet grade 的班级文件夹）。"""
    dirs = [
        ROOT.resolve(),
        Path(poetry_gpt.__file__).resolve().parent,
        Path(courseware.__file__).resolve().parent,
        DEFAULT_DATA.resolve(),
        (ROOT / "lessons").resolve(),
    ]
    return dirs + [Path(d).resolve() for d in extra]


def _system_mounts(bound: list[str]) -> list[str]:
    """把系统的程序与库（SYSTEM_DIRS、SYSTEM_FILES）只读地放进沙箱的 bwrap 参数；放进来的文件夹记进 bound。"""
    args = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
            bound.append(d)
    args += ["--perms", "0755", "--dir", "/etc"]  # bwrap 自己建的是 0700：降了 uid 的学习者读不了放进来的 passwd
    for f in SYSTEM_FILES:
        args += ["--ro-bind-try", f, f]
    return args


_SECCOMP_ARCH = {  # (AUDIT_ARCH_*, socket 的系统调用号, 密钥环的三个系统调用 add_key、request_key、keyctl)
    "x86_64": (0xC000003E, 41, (248, 249, 250)),
    "aarch64": (0xC00000B7, 198, (217, 218, 219)),
}
AF_VSOCK, EAFNOSUPPORT, ENOSYS = 40, 97, 38
X32_BIT = 0x40000000  # x86_64 上 x32 调用的系统调用号带这一位（arch 照样是 x86_64）：一律 ENOSYS，免得绕过下面几条


def seccomp_filter() -> bytes | None:
    """给 bwrap --seccomp 的 BPF 程序：socket(AF_VSOCK, …) 失败（EAFNOSUPPORT）——网络命名空间管不到 vsock，它直通
    宿主与虚拟机管理程序；密钥环的系统调用（add_key、request_key、keyctl）失败（ENOSYS）——钥匙的配额记在内核眼里的
    用户头上（以普通用户批改时就是老师自己，每个用户 200 把），一次检查放满了，老师自己的 add_key 就失败；
    别的体系结构的系统调用（x86_64 上的 32 位调用）与 x32 调用一律 ENOSYS，免得绕过这几条。
    不认得的体系结构上为 None（不装过滤器）。"""
    arch = _SECCOMP_ARCH.get(platform.machine())
    if arch is None:
        return None
    audit, socket_nr, (add_key, request_key, keyctl) = arch
    ld, jeq, jge, ret = (
        0x20,
        0x15,
        0x35,
        0x06,
    )  # BPF_LD|BPF_W|BPF_ABS、BPF_JMP|BPF_JEQ|BPF_K、…|BPF_JGE|BPF_K、BPF_RET|BPF_K
    allow, errno = 0x7FFF0000, 0x00050000  # SECCOMP_RET_ALLOW、SECCOMP_RET_ERRNO
    program = [  # (指令, 条件成立时跳过几条, 不成立时跳过几条, 常数)
        (ld, 0, 0, 4),  # seccomp_data.arch
        (jeq, 1, 0, audit),
        (ret, 0, 0, errno | ENOSYS),
        (ld, 0, 0, 0),  # seccomp_data.nr
        (jge, 7, 0, X32_BIT),  # → 最后一条 ENOSYS
        (jeq, 6, 0, add_key),
        (jeq, 5, 0, request_key),
        (jeq, 4, 0, keyctl),
        (jeq, 0, 2, socket_nr),  # 不是 socket → ALLOW
        (ld, 0, 0, 16),  # seccomp_data.args[0] 的低 32 位
        (jeq, 2, 0, AF_VSOCK),  # → EAFNOSUPPORT；否则 → ALLOW
        (ret, 0, 0, allow),
        (ret, 0, 0, errno | ENOSYS),
        (ret, 0, 0, errno | EAFNOSUPPORT),
    ]
    return b"".join(struct.pack("<HBBI", *insn) for insn in program)


def _isolation(info_fd: int | None, seccomp_fd: int | None = None) -> list[str]:
    """bwrap 本身与它的命名空间、会话、能力、seccomp 这几项参数（见模块说明）；info_fd、seccomp_fd 见 command。"""
    args = [
        bwrap_path() or "bwrap",
        *(["--info-fd", str(info_fd)] if info_fd is not None else []),
        *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]
    if as_root():  # 已在 ENTER_USER_NAMESPACE 建的命名空间里：留下降 uid 要的两项能力，PRELUDE 降完就全没了
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += [
            "--unshare-user",
            "--disable-userns",
            "--uid",
            str(SANDBOX_UID),
            "--gid",
            str(SANDBOX_UID),
            "--cap-drop",
            "ALL",
        ]
    return args


# /proc/sys 整个只读地盖上一层：连沙箱自己的命名空间里的设置（kernel.msgmax、pid_max……）也不许改
# /proc/keys、/proc/key-users 盖成空文件：以普通用户批改时，前一位学习者留在内核里的钥匙（同一个宿主 uid）
# 的名字在这里看得见，不盖上就是一条传话的路
KERNEL_AND_SCRATCH = (
    "--proc",
    "/proc",
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/dev/null",
    "/proc/keys",
    "--ro-bind-try",
    "/dev/null",
    "/proc/key-users",
    "--dev",
    "/dev",
    # /dev/pts 换成一块空盘：内核的 pty 池全机共用（kernel.pty.max），学习者的代码用不着终端，也就拿不光它
    "--size",
    "4096",
    "--tmpfs",
    "/dev/pts",
    "--remount-ro",
    "/dev/pts",
    "--size",
    str(SHM_BYTES),
    "--perms",
    "1777",
    "--tmpfs",
    "/dev/shm",
    "--size",
    str(SCRATCH_BYTES),
    "--perms",
    "1777",
    "--tmpfs",
    "/tmp",
)
"""沙箱里的 /proc、/dev（只有几个设备文件）与两块有大小上限的内存盘 /dev/shm、/tmp 的 bwrap 参数。"""


def _parents(dest: str, bound: list[str], made: set[str]) -> list[str]:
    """dest 上面还没有的各级文件夹（不在 made 里、也不在 bound 里放进来的文件夹之下）：建成 0755
    （bwrap 自己建的是 0700，降了 uid 的学习者进不去）。建了的记进 made。"""
    out = []
    for parent in reversed(Path(dest).parents):
        p = str(parent)
        if p == "/" or p in made or any(p == b or p.startswith(b.rstrip("/") + "/") for b in bound):
            continue
        made.add(p)
        out += ["--perms", "0755", "--dir", p]
    return out


def command(
    argv: list[str],
    workdir: Path,
    readonly: list[Path] = (),
    nproc: int = MAX_PROCESSES,
    info_fd: int | None = None,
    hidden: tuple[str, ...] = (),
    seccomp_fd: int | None = None,
) -> list[str]:
    """把 argv 包进 bwrap。workdir（宿主上的临时文件夹）在沙箱里的同一路径上是一块空的内存盘，
    readonly 里的文件（学习者练习的副本、runner.py 与 wire.py 的副本）只读地放进同一路径；nproc 是
    用户命名空间里的进程数上限；hidden 是另外要藏起来的文件夹（班级文件夹）；seccomp_fd 是读得到 seccomp_filter()
    的文件描述符（给出时装上这个过滤器）；info_fd 给出时 bwrap 往里写 {"child-pid": 沙箱 1 号进程在宿主上的 pid}。
    以 root 运行时，bwrap 前面还有 ENTER_USER_NAMESPACE 这一段。"""
    args = _isolation(info_fd, seccomp_fd)
    bound: list[str] = []
    args += _system_mounts(bound)
    # 先铺空的 /tmp，再放 Python：.venv 在 /tmp 下（如 /tmp/一字一诗/.venv）时也看得见
    args += KERNEL_AND_SCRATCH
    made = {"/proc", "/dev", "/tmp"}
    python = _python_dirs()
    for d in python:
        args += _parents(d, bound, made) + ["--ro-bind", d, d]
        bound.append(d)
    # 仓库（连同 .git）、课程包、数据、课程文件夹与班级文件夹不放进沙箱。它们落在上面放进来的文件夹里时
    # （非可编辑安装进了 site-packages，仓库或班级文件夹就在 /usr 或 .venv 下），盖上一块空的小内存盘把它们藏起来；
    # 放在仓库里的 .venv（Python）再放回这块盘上，最后把盘改成只读
    shown = [Path(d) for d in (*python, *SYSTEM_DIRS)]
    covered: list[Path] = []
    for d in hidden_dirs(hidden):
        if any(d.is_relative_to(s) for s in shown) and not any(d.is_relative_to(c) for c in covered):
            covered.append(d)
            args += ["--size", "65536", "--perms", "0755", "--tmpfs", str(d)]
            inside = [p for p in python if Path(p).is_relative_to(d) and Path(p) != d]
            for p in inside:
                args += _parents(p, [], {str(d), *map(str, Path(d).parents)}) + ["--ro-bind", p, p]
            args += ["--remount-ro", str(d)]
    args += _parents(str(workdir), bound, made) + [
        "--size",
        str(SCRATCH_BYTES),
        "--perms",
        "1777",
        "--tmpfs",
        str(workdir),
    ]
    for path in readonly:
        args += ["--ro-bind", str(path), str(path)]
    # 最后把 / 与 /dev 本身改成只读：bwrap 的这两块内存盘没有大小上限，不能让学习者往里写
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", str(workdir), "--"]
    args += [sys.executable, "-I", "-S", "-c", PRELUDE, str(SANDBOX_UID), str(nproc), *argv]
    return [sys.executable, "-I", "-S", "-c", ENTER_USER_NAMESPACE, *args] if as_root() else args


USER_LIMITS = (("max_user_namespaces", b"0"), ("max_inotify_instances", b"8"), ("max_inotify_watches", b"1024"))
"""以 root 批改时，每次检查的用户命名空间里的上限（/proc/sys/user）：不能再建用户命名空间；inotify 实例与监视数很少——
这些都逐级记在宿主的 root 头上，不压低的话，一次检查能拿光 root 的 128 个 inotify 实例。"""
ENTER_USER_NAMESPACE = f"""\
import ctypes, os, sys
USER_LIMITS = {USER_LIMITS!r}
me = os.getpid()
ready, go = os.pipe()
helper = os.fork()
if helper == 0:  # 帮手还在原来的命名空间里：以 root 写好映射就退出
    status = 1
    try:
        os.close(go)
        if os.read(ready, 1) == b"x":
            for name in ("uid_map", "gid_map"):
                fd = os.open(f"/proc/{{me}}/{{name}}", os.O_WRONLY)
                os.write(fd, b"0 0 1\\n{SANDBOX_UID} {SANDBOX_UID} 1\\n")
                os.close(fd)
            status = 0
    finally:
        os._exit(status)
os.close(ready)
libc = ctypes.CDLL(None, use_errno=True)
ok = libc.unshare({CLONE_NEWUSER}) == 0
err = ctypes.get_errno()
os.write(go, b"x" if ok else b"-")
os.close(go)
_, status = os.waitpid(helper, 0)
if not ok or status != 0:
    sys.exit(f"bwrap 之前建不了用户命名空间：{{os.strerror(err) if not ok else 'uid 映射写不进去'}}")
for name, value in USER_LIMITS:
    fd = os.open(f"/proc/sys/user/{{name}}", os.O_WRONLY)
    os.write(fd, value)
    os.close(fd)
os.execv(sys.argv[1], sys.argv[1:])
"""
"""以 root 运行时放在 bwrap 前面的一小段（可信的）Python：把自己放进一个新的用户命名空间，uid/gid 0 与 65534
原样映射——0 留给 bwrap 搭挂载（读得到 /root 下的 Python），学习者的代码随后由 PRELUDE 降到 65534。
映射只能由命名空间外的进程写，所以先 fork 一个小帮手写映射。最后写下 USER_LIMITS：能再建的用户命名空间数为 0
（学习者建不了自己的命名空间去挂没有上限的内存盘），inotify 实例与监视数很少。它是一个新 exec 的单线程进程：torch 的进程 fork 出来的子进程
里可能还有别的线程，那里 unshare(CLONE_NEWUSER) 会失败（EINVAL）。"""


@functools.cache
def _probe(bwrap: str | None, root: bool) -> str | None:
    if bwrap is None:
        return "本机没有 bubblewrap（bwrap）"
    code = (
        "import os; w = []\nfor p in ('/proc/sys/kernel/core_pattern', '/proc/sys/vm/overcommit_memory'):\n"
        "    try:\n        os.close(os.open(p, os.O_WRONLY)); w.append(p)\n    except OSError:\n        pass\n"
        "print(os.getuid(), os.getgid(), ','.join(w) or '-')"
    )
    try:
        probe = subprocess.run(
            command([sys.executable, "-I", "-c", code], Path("/tmp/poet-probe")),
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"bwrap 启动不了（{e}）"
    if probe.returncode != 0 or probe.stdout.split() != [str(SANDBOX_UID), str(SANDBOX_UID), "-"]:
        why = (
            probe.stderr.strip().splitlines() or [f"退出码 {probe.returncode}，输出 {probe.stdout.strip()[:200]!r}"]
        )[-1]
        return f"bwrap 在这台机器上用不了（{why}）"
    return None


def unavailable_reason() -> str | None:
    """沙箱能用时为 None；否则是中文原因（没有 bwrap，或它在这里启动不了，如容器里不许建命名空间，
    或沙箱里的进程没有降到 SANDBOX_UID、/proc/sys 还能写）。"""
    return _probe(bwrap_path(), as_root())


def identity() -> str:
    """学习者的代码在沙箱里以谁的身份运行（给 doctor、check、grade 看）。"""
    if as_root():
        return f"uid {SANDBOX_UID}（nobody），每次检查一个新的用户命名空间；批改程序是 root，学习者的代码不是"
    return f"uid {SANDBOX_UID}（nobody），每次检查一个新的用户命名空间；在内核眼里是你（uid {os.geteuid()}），不是 root"


@dataclass(frozen=True)
class Machine:
    """这台机器给一次批改的隔离：./poet grade 开始时探一次（machine()），屏幕上的说明与 JSON 报告都读这一份。

    Attributes:
        unavailable: 沙箱用不了的原因（unavailable_reason）；用得了时为 None。
        sandboxed: 学习者的代码关在沙箱里：没有关掉沙箱（Limits.sandbox），它也用得了。
        learner_uid: 学习者的代码以哪个 uid 运行：沙箱里是 SANDBOX_UID，否则是批改程序自己的。
        confinement: 一次检查的内存与进程数由什么管住（confine.available_kind）："cgroup v2"、"cgroup v1"
            或 "none"（只有每个进程各自的上限）。
    """

    unavailable: str | None
    sandboxed: bool
    learner_uid: int
    confinement: str


def machine(use_sandbox: bool = True) -> Machine:
    """探这台机器：试跑一次 bwrap、试建一个 cgroup（每个进程各只试一次）。use_sandbox 是 Limits.sandbox。"""
    from .confine import available_kind

    why = unavailable_reason()
    sandboxed = use_sandbox and why is None
    return Machine(why, sandboxed, SANDBOX_UID if sandboxed else os.geteuid(), available_kind())


def protection(memory_mb: int, timeout: float, found: Machine | None = None) -> str:
    """一句话：学习者的代码以谁的身份运行、这次检查的内存与进程数由什么管住、CPU 时间最多几秒（./poet grade 开头说）。
    found 是这次批改探到的 Machine（None 时现探）。"""
    from .confine import describe

    found = found or machine()
    who = (
        f"学习者的代码以 uid {SANDBOX_UID} 运行（不是 root）"
        if found.unavailable is None
        else f"没有沙箱，学习者的代码以你的身份（uid {os.geteuid()}）运行"
    )
    return f"{who}；{describe(found.confinement, memory_mb)}；CPU 时间每次检查最多 {timeout:g} 秒（--timeout）"


def fallback_notice(found: Machine | None = None) -> str | None:
    """沙箱用不了时给老师和学习者看的一行说明；能用时为 None。found 是这次批改探到的 Machine（None 时现探）。"""
    why = unavailable_reason() if found is None else found.unavailable
    if why is None:
        return None
    return (
        f"注意：{why}，检查退回“按进程隔离”——学习者的代码仍有时间、内存、输出上限，判定仍只由批改程序作出，"
        f"但它能读写你能碰到的文件。Linux 上安装 bubblewrap 即可启用沙箱（Debian/Ubuntu：apt-get install bubblewrap）。"
    )
