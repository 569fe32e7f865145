"""用 bubblewrap（bwrap）把检查学习者练习的子进程关进沙箱。

沙箱里看得见的只有：系统的程序与库（/usr 等，只读）、Python 与虚拟环境（只读）、这次检查自己的
工作文件夹与 /tmp（各是一块有大小上限的内存盘，检查结束就消失；工作文件夹里只读地放着练习的副本和
runner.py、wire.py 两个副本——它们只用标准库和 torch）。
课程包 poetry_gpt（里面有 prosody.quatrain_rhyme 这样的参考实现）、data/、lessons/（参考答案 solution.py、
check.py）、.git、班级文件夹、家目录都不存在于沙箱里：学习者的代码 import poetry_gpt 会失败。
另外：新的 PID 命名空间（看不见、也杀不了沙箱外的进程；bwrap 结束时沙箱里的进程全部结束）、
没有网络、新的会话（碰不到老师的终端）、丢掉全部特权（capabilities）。

没有 bwrap（macOS、精简容器）或 bwrap 在这台机器上用不了时，available() 给出原因，
检查退回“按进程隔离”：子进程照样有时间、内存、输出上限，判定照样只由批改程序作出，
但学习者的代码能读写当前用户能碰到的文件，也能留下脱离了进程组的后台进程。
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import poetry_gpt

from ..common import DEFAULT_DATA, ROOT

SCRATCH_BYTES = 64 << 20  # 工作文件夹与 /tmp 各自的大小上限：写满了只是学习者自己的写入失败
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
                "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")


def bwrap_path() -> str | None:
    """PATH 里的 bwrap；没有时为 None。"""
    return shutil.which("bwrap")


def _python_dirs() -> list[str]:
    """运行 Python 需要的文件夹：解释器安装位置与虚拟环境（含 site-packages）。"""
    dirs = {sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable))}
    return sorted(d for d in dirs if d and os.path.isdir(d))


def hidden_dirs() -> list[Path]:
    """沙箱里不许看见的文件夹：课程包 poetry_gpt（参考实现）、data/ 与 lessons/（参考答案、check.py）。"""
    return [Path(poetry_gpt.__file__).resolve().parent, DEFAULT_DATA.resolve(), (ROOT / "lessons").resolve()]


def command(argv: list[str], workdir: Path, readonly: list[Path] = ()) -> list[str]:
    """把 argv 包进 bwrap。workdir（宿主上的临时文件夹）在沙箱里的同一路径上是一块空的内存盘，
    readonly 里的文件（学习者练习的副本、runner.py 与 wire.py 的副本）只读地放进同一路径。"""
    args = [bwrap_path() or "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for f in SYSTEM_FILES:
        args += ["--ro-bind-try", f, f]
    # 先铺空的 /tmp，再放 Python：.venv 在 /tmp 下（如 /tmp/一字一诗/.venv）时也看得见
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(SCRATCH_BYTES), "--tmpfs", "/tmp"]
    python = _python_dirs()
    for d in python:
        args += ["--ro-bind", d, d]
    # 课程包、数据与课程文件夹不放进沙箱。它们落在上面放进来的文件夹里时（非可编辑安装进了 site-packages，
    # 或仓库就在 /usr 下），盖上一块空的内存盘把它们藏起来
    shown = [Path(d) for d in (*python, *SYSTEM_DIRS)]
    for d in hidden_dirs():
        if any(d.is_relative_to(s) for s in shown):
            args += ["--tmpfs", str(d)]
    args += ["--size", str(SCRATCH_BYTES), "--tmpfs", str(workdir)]
    for path in readonly:
        args += ["--ro-bind", str(path), str(path)]
    args += ["--chdir", str(workdir), "--"]
    return args + list(argv)


@functools.lru_cache(maxsize=None)
def _probe(bwrap: str | None) -> str | None:
    if bwrap is None:
        return "本机没有 bubblewrap（bwrap）"
    try:
        probe = subprocess.run(command([sys.executable, "-I", "-c", "print('ok')"], Path("/tmp/poet-probe")),
                               capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap 启动不了（{e}）"
    if probe.returncode != 0 or probe.stdout.strip() != "ok":
        why = (probe.stderr.strip().splitlines() or [f"退出码 {probe.returncode}"])[-1]
        return f"bwrap 在这台机器上用不了（{why}）"
    return None


def unavailable_reason() -> str | None:
    """沙箱能用时为 None；否则是中文原因（没有 bwrap，或它在这里启动不了，如容器里不许建命名空间）。"""
    return _probe(bwrap_path())


def fallback_notice() -> str | None:
    """沙箱用不了时给老师和学习者看的一行说明；能用时为 None。"""
    why = unavailable_reason()
    if why is None:
        return None
    return (f"注意：{why}，检查退回“按进程隔离”——学习者的代码仍有时间、内存、输出上限，判定仍只由批改程序作出，"
            f"但它能读写你能碰到的文件。Linux 上安装 bubblewrap 即可启用沙箱（Debian/Ubuntu：apt-get install bubblewrap）。")
