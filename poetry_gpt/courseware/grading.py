"""运行与比较学习者的练习：./poet check 与 ./poet grade 共用这里。

每份练习在一个带时间与内存上限的子进程里（runner.py）依次做两步检查：

1. 可见检查：把文件当脚本运行，执行它底部自带的检查；
2. 差分检查：用 check.py 生成的随机用例调用学习者的 solve；父进程再拿参考答案 solution.py
   的输出逐个比较（整数、字符串精确相等；浮点与张量用 allclose）。

这是“按进程隔离”，不是安全沙箱：学习者的代码可以读写本机文件，只是跑不死检查程序，
也影响不到别人的结果。
"""
from __future__ import annotations

import functools
import importlib.util
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from ..common import ROOT
from .catalogue import Lesson

RUNNER = Path(__file__).with_name("runner.py")
VERDICTS = {
    "passed": "通过",
    "not_implemented": "未完成",
    "wrong": "答案错误",
    "crashed": "崩溃",
    "timeout": "超时",
    "syntax": "语法错误",
}
OUTPUT_LIMIT = 16 << 20  # 子进程最多写 16 MiB 输出，再多就被系统终止
SHOWN_CHARS = 2000  # 判定消息里最多引用这么多字符的输出
_reference_lock = threading.Lock()


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
    """子进程的限制：timeout 秒（整次检查）、内存 MiB、计算线程数。"""

    timeout: float = 20.0
    memory_mb: int = 2048
    threads: int = 2


def _limit_resources(memory_mb: int):
    def apply():
        mem = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_limited(args: list[str], workdir: Path, limits: Limits) -> tuple[int | None, str]:
    """在 workdir 里运行 args（新的进程组、干净的环境、资源上限）。

    Returns:
        (exit code, 输出尾部)。超时时 exit code 为 None，整个进程组已被杀掉。
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
    # 父进程一直拿着日志文件的句柄：学习者的代码即使删掉工作文件夹里的文件，输出也还读得到
    with open(workdir / "output.log", "w+b") as log:
        proc = subprocess.Popen(args, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_limit_resources(limits.memory_mb))
        try:
            code = proc.wait(timeout=limits.timeout)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # 连同它开的子进程一起结束
            except ProcessLookupError:
                pass
            proc.wait()
        size = log.seek(0, os.SEEK_END)
        if size >= OUTPUT_LIMIT and code is not None:
            code = -signal.SIGXFSZ  # Python 忽略这个信号，写满上限只会得到 OSError：按输出太多处理
        log.seek(max(0, size - 4 * SHOWN_CHARS))
        tail = log.read().decode("utf-8", errors="replace")
    return code, tail


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=None)
def lesson_check(lesson: Lesson):
    """这一课的 check.py 模块（含 cases、可选的 compare 与 HINT）。每个进程只载入一次：
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
    return cases, [solution.solve(*args) for args in cases]


def _short(value) -> str:
    """把用例的输入、输出写成一行短文本；张量只写形状和前几个数。"""
    if isinstance(value, torch.Tensor):
        head = [round(v, 4) if isinstance(v, float) else v for v in value.flatten()[:6].tolist()]
        more = " …" if value.numel() > 6 else ""
        return f"张量{list(value.shape)} {head}{more}"
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
        return "(" + ", ".join(_short(v) for v in value) + ")"
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + " …"


def compare(expected, got, where: str = "结果") -> str | None:
    """比较参考输出与学习者的输出。相同返回 None，否则返回中文说明哪里不同。

    整数、字符串、布尔精确相等；浮点数与浮点张量用 allclose（rtol=1e-4, atol=1e-5）；
    列表、元组、字典逐项比较。
    """
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            return f"{where}应是张量，实际是 {type(got).__name__}"
        if tuple(got.shape) != tuple(expected.shape):
            return f"{where}的形状应为 {list(expected.shape)}，实际是 {list(got.shape)}"
        if expected.is_floating_point():
            ok = got.is_floating_point() and torch.allclose(got.double(), expected.double(), rtol=1e-4, atol=1e-5)
        else:
            ok = not got.is_floating_point() and torch.equal(got.long(), expected.long())
        if ok:
            return None
        gap = (got.double() - expected.double()).abs().max().item() if got.numel() else 0.0
        return f"{where}的数值不对（最大相差 {gap:.4g}）"
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
        return next((r for k in expected if (r := compare(expected[k], got[str(k)], f"{where}[{k!r}]"))), None)
    if type(got) is not type(expected) or got != expected:
        return f"{where}应为 {_short(expected)}，实际是 {_short(got)}"
    return None


def check_file(lesson: Lesson, path: Path, limits: Limits = Limits(), seed: int | None = None) -> Verdict:
    """检查一份练习：语法 → 可见检查 → 差分检查（后两步在同一个受限子进程里）。

    任何学习者文件都只会得到一个判定，不会抛异常。limits.timeout 是整次检查的时间上限（秒）。
    """
    started = time.monotonic()
    seed = default_seed(lesson) if seed is None else seed

    def verdict(kind: str, message: str) -> Verdict:
        return Verdict(kind, message, round(time.monotonic() - started, 2))

    path = Path(path).resolve()
    try:
        source = path.read_bytes().decode("utf-8-sig")  # Windows 记事本存的“UTF-8 带 BOM”也认
        compile(source, str(path), "exec")
    except UnicodeDecodeError:
        return verdict("syntax", "文件不是 UTF-8 编码，请用 UTF-8 另存后再检查")
    except SyntaxError as e:
        return verdict("syntax", f"第 {e.lineno} 行：{e.msg}\n{(e.text or '').rstrip()}")
    except (ValueError, OSError) as e:
        return verdict("syntax", f"无法读取这个文件：{e}")

    try:
        with _reference_lock:  # ./poet grade 多线程批改：每课的参考输出只算一次
            cases, expected = reference(lesson, seed)
    except Exception as e:  # 课程自身的问题，不是学习者的
        return verdict("crashed", f"参考答案或 check.py 出错（请告诉老师）：{e}")
    with tempfile.TemporaryDirectory(prefix="poet-check-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        result_file = work / "result.pt"
        code, out = run_limited([sys.executable, "-I", str(RUNNER), str(ROOT), str(lesson.folder / "check.py"),
                                 str(path), str(result_file), str(seed)], work, limits)
        if code is None:
            return verdict("timeout", f"超过 {limits.timeout:g} 秒还没结束（是不是有死循环？）")
        try:
            result = torch.load(result_file, weights_only=True)
            status = result["status"]
        except Exception:  # 进程没能写下结果：被信号杀掉、os._exit、输出太多……
            return verdict(*_classify_failure(code, out))
    if status != "ok":
        return verdict(status, result["message"] or "solve 还没有补全")
    cmp = getattr(lesson_check(lesson), "compare", compare)
    for i, (args, want) in enumerate(zip(cases, expected)):
        got = result["outputs"][i] if i < len(result["outputs"]) else None
        reason = cmp(want, got)
        if reason:
            return verdict("wrong", f"第 {i + 1}/{len(cases)} 个用例不对：{reason}\n"
                                    f"  输入：{_short(args)}\n  应为：{_short(want)}\n  实际：{_short(got)}")
    return verdict("passed", f"可见检查与 {len(cases)} 个随机用例的差分检查全部通过")


def _classify_failure(code: int, output: str) -> tuple[str, str]:
    """进程没有写下结果时，按退出方式判定。"""
    if code < 0 or code > 128:
        sig = -code if code < 0 else code - 128
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        why = {"SIGXFSZ": "输出太多", "SIGKILL": "可能用光了内存", "SIGSEGV": "可能是递归太深"}.get(name, "")
        return "crashed", f"进程被信号 {name} 终止{('（' + why + '）') if why else ''}"
    if "MemoryError" in output[-500:]:
        return "crashed", "内存超过上限"
    tail = output[-SHOWN_CHARS:].strip()
    return "crashed", f"程序以退出码 {code} 结束，没有完成检查" + (f"：\n{tail}" if tail else "")
