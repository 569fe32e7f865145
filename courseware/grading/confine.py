"""一次检查的全部进程合在一起的上限：内存、进程数、CPU 时间，以及检查结束时把它们一个不落地收掉。

三种情形，由 Confinement.open() 按这个顺序试，用得上哪种就用哪种（./poet doctor 与 check/grade 的输出都说明）：

1. cgroup v2，且本进程所在的 cgroup 交给了我们（可以在下面建子 cgroup、开 memory 与 pids 控制器）：
   memory.max（连同内存盘里的文件）、memory.swap.max=0、pids.max，cpu.stat 记 CPU 时间；
2. cgroup v1 可写（以 root 运行的容器、CI）：在本进程的 memory cgroup 下建子 cgroup（memory.limit_in_bytes，
   含内存盘页面），pids 与 cpuacct 层级里各建一个；
3. 都没有：每块可写的内存盘都有大小上限（见 sandbox.py），每个进程 RLIMIT_AS，用户命名空间里 RLIMIT_NPROC
   限进程数——合计的内存上限是 进程数 × 单进程上限 + 内存盘，不再是 --memory 本身。

每种情形下每个进程另有 RLIMIT_CPU（学习者自己用掉的 CPU 秒数，不是墙上的时间）、RLIMIT_AS、RLIMIT_FSIZE。
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
MAX_PROCESSES = 64  # 一次检查最多同时这么多个进程（线程也算）：torch 自己开几个计算线程，学习者的练习用不着更多
_serial = itertools.count()
_TOKEN = secrets.token_hex(4)
MIN_PROBE_MB = 64


def _own_cgroup(controller: str | None) -> str | None:
    """本进程在某个 v1 控制器（None：v2 的统一层级）里的 cgroup 路径，如 /process_api/abc。"""
    try:
        lines = Path("/proc/self/cgroup").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if (controller is None and names == "") or (controller is not None and controller in names.split(",")):
            return path
    return None


def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii")
    except OSError:
        return ""


def _stat_value(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


@dataclass
class Confinement:
    """一次检查的 cgroup（一个或几个文件夹）。kind 是 "cgroup v2"、"cgroup v1" 或 "none"。"""

    kind: str = "none"
    dirs: list[Path] = field(default_factory=list)  # 子进程要加入的每个 cgroup
    memory_dir: Path | None = None
    cpu_dir: Path | None = None

    @classmethod
    def open(cls, memory_mb: int) -> Confinement:
        """为一次检查建好 cgroup；哪种都建不了时是 kind == "none"（不抛异常）。"""
        name = f"poet-{os.getpid()}-{next(_serial)}-{_TOKEN}"  # 别的容器里同一个 pid 的批改进程不会撞名
        for make in (cls._v2, cls._v1):
            made = None
            try:
                made = make(name, memory_mb)
            except OSError:
                pass
            if made is not None:
                return made
        return cls()

    @classmethod
    def _v2(cls, name: str, memory_mb: int) -> Confinement | None:
        own = _own_cgroup(None)
        base = CGROUP_ROOT / (own or "/").lstrip("/")
        if own is None or not (base / "cgroup.subtree_control").is_file():
            return None
        if not {"memory", "pids"} <= set(_read(base / "cgroup.subtree_control").split()):
            return None  # 控制器没有交给子 cgroup：打开它们要把本进程先移出去，那不是批改程序该动的
        child = base / name
        child.mkdir()
        made = cls("cgroup v2", [child], child, child)
        try:
            _write(child / "memory.max", str(memory_mb << 20))
            _write(child / "memory.swap.max", "0")
            _write(child / "pids.max", str(MAX_PROCESSES))
        except OSError:
            made.close()
            raise
        return made

    @classmethod
    def _v1(cls, name: str, memory_mb: int) -> Confinement | None:
        paths = {c: _own_cgroup(c) for c in ("memory", "pids", "cpuacct")}
        if paths["memory"] is None or not (CGROUP_ROOT / "memory" / "cgroup.procs").is_file():
            return None
        made = cls("cgroup v1")
        try:
            for controller, own in paths.items():
                if own is None:
                    continue
                child = CGROUP_ROOT / controller / own.lstrip("/") / name
                child.mkdir()
                made.dirs.append(child)
                if controller == "memory":
                    made.memory_dir = child
                    _write(child / "memory.limit_in_bytes", str(memory_mb << 20))
                    with contextlib.suppress(OSError):  # 有交换分区时连交换一起算
                        _write(child / "memory.memsw.limit_in_bytes", str(memory_mb << 20))
                elif controller == "pids":
                    _write(child / "pids.max", str(MAX_PROCESSES))
                else:
                    made.cpu_dir = child
        except OSError:
            made.close()
            raise
        return made if made.memory_dir is not None else None

    @property
    def counts_processes(self) -> bool:
        return self.kind != "none" and any((d / "pids.max").exists() for d in self.dirs)

    def join(self) -> None:
        """把调用它的进程放进这些 cgroup（在子进程里、exec 之前调用）。"""
        for d in self.dirs:
            _write(d / "cgroup.procs", "0")

    def cpu_seconds(self) -> float | None:
        """cgroup 里全部进程用掉的 CPU 秒数（含已结束的）；记不了时为 None。"""
        if self.cpu_dir is None:
            return None
        if self.kind == "cgroup v2":
            return _stat_value(_read(self.cpu_dir / "cpu.stat"), "usage_usec") / 1e6
        text = _read(self.cpu_dir / "cpuacct.usage").strip()
        return int(text) / 1e9 if text.isdigit() else None

    def oom_killed(self) -> bool:
        """内核因为这个 cgroup 的内存上限杀过进程。"""
        if self.memory_dir is None:
            return False
        if self.kind == "cgroup v2":
            return _stat_value(_read(self.memory_dir / "memory.events"), "oom_kill") > 0
        return _stat_value(_read(self.memory_dir / "memory.oom_control"), "oom_kill") > 0

    def peak_bytes(self) -> int | None:
        """这次检查的全部进程（连同内存盘）合计用到的最大内存。"""
        if self.memory_dir is None:
            return None
        name = "memory.peak" if self.kind == "cgroup v2" else "memory.max_usage_in_bytes"
        text = _read(self.memory_dir / name).strip()
        return int(text) if text.isdigit() else None

    def pids(self) -> list[int]:
        found = set()
        for d in self.dirs:
            found.update(int(p) for p in _read(d / "cgroup.procs").split() if p.isdigit())
        return sorted(found)

    def drain(self, seconds: float = 10.0) -> bool:
        """杀掉 cgroup 里剩下的每个进程，等到一个都不剩（最多 seconds 秒）。返回是否已经空了。"""
        deadline = time.monotonic() + seconds
        while left := self.pids():
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, 9)
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def close(self) -> None:
        """删掉这些 cgroup（里面的进程先由 drain 收掉）。"""
        for d in reversed(self.dirs):
            for _ in range(50):  # 刚结束的进程还在退出时 rmdir 报 EBUSY：稍等再试
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.dirs = []


def describe(kind: str, memory_mb: int) -> str:
    """给 doctor、check、grade 看的一句：这台机器上一次检查的内存与进程数由什么管住。"""
    if kind == "none":
        return (
            f"没有可用的 cgroup：每个进程内存 {memory_mb} MiB、最多 {MAX_PROCESSES} 个进程、每块内存盘有大小上限"
            f"（合计可超过 {memory_mb} MiB）"
        )
    return f"{kind}：这次检查的全部进程连同内存盘合计不超过 {memory_mb} MiB、最多 {MAX_PROCESSES} 个进程"


def sweep_stale() -> None:
    """删掉已经不在了的批改进程（被 SIGKILL 的，来不及收尾）留下的 cgroup（poet-<pid>-<n>-<记号>），
    里面还剩的检查进程先结束掉。"""
    # 只看自己的 memory cgroup 与 v2 的 cgroup：pids、cpuacct 常在层级的根上，别的容器的批改进程也在那里建，
    # 它们的 pid 在我们的 /proc 里看不见
    parents = [CGROUP_ROOT / "memory" / own.lstrip("/")] if (own := _own_cgroup("memory")) else []
    if (own := _own_cgroup(None)) is not None:
        parents.append(CGROUP_ROOT / own.lstrip("/"))
    for parent in parents:
        try:
            stale = [
                d
                for d in parent.glob("poet-*-*")
                if d.name.split("-")[1].isdigit() and not Path(f"/proc/{d.name.split('-')[1]}").exists()
            ]
        except OSError:
            continue
        for d in stale:
            with contextlib.suppress(OSError):  # 没有权限、杀不完：留着
                Confinement(dirs=[d]).drain(seconds=2)  # 批改进程没了，它的检查进程还在：先结束它们
                d.rmdir()


def memory_available_mb() -> tuple[int, str] | None:
    """这台机器（这个容器）现在还能用多少内存 (MiB, 依据)：本进程所在 cgroup（及其上各级）的内存上限减去已用，
    与 /proc/meminfo 的 MemAvailable，取小的；都读不到时为 None。"""
    found = []
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text(encoding="ascii").splitlines():
            if line.startswith("MemAvailable:"):
                found.append((int(line.split()[1]) >> 10, "MemAvailable"))
    if (own := _own_cgroup(None)) is not None and (CGROUP_ROOT / "cgroup.controllers").is_file():
        here = CGROUP_ROOT / own.lstrip("/")
        for d in [here, *here.parents]:
            if not d.is_relative_to(CGROUP_ROOT):
                break
            limit, used = _read(d / "memory.max").strip(), _read(d / "memory.current").strip()
            if limit.isdigit() and used.isdigit():
                found.append(((int(limit) - int(used)) >> 20, "本进程所在 cgroup 的上限"))
    elif (own := _own_cgroup("memory")) is not None:
        d = CGROUP_ROOT / "memory" / own.lstrip("/")
        limit, used = _read(d / "memory.limit_in_bytes").strip(), _read(d / "memory.usage_in_bytes").strip()
        if limit.isdigit() and used.isdigit() and int(limit) < 1 << 60:
            found.append(((int(limit) - int(used)) >> 20, "本进程所在 cgroup 的上限"))
    return min(found) if found else None


@functools.cache
def available_kind() -> str:
    """这台机器上一次检查会用到哪种：建一个试试再删掉（每个进程只试一次，顺便 sweep_stale）。"""
    sweep_stale()
    made = Confinement.open(MIN_PROBE_MB)
    made.close()
    return made.kind
