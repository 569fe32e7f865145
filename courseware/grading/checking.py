"""检查一份练习（check_file）：读文件与语法 → 源码规则 → 受限子进程里的可见检查与差分检查 → 判定。"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..catalogue import Lesson
from ..messages import safe_text
from . import sandbox, wire
from .answers import judge
from .course import default_seed, expected_errors, fresh_result, lesson_check, reference, tripwires
from .limited import Run, interruptible, run_limited, scratch
from .reply import checked, classify_failure, read_answers
from .shortcuts import rule_problem
from .submission import file_problem, read_source
from .verdict import MAX_FILE_BYTES, MESSAGE_CHARS, OUTPUT_LIMIT, Limits, Verdict, wall_seconds

RUNNER = Path(__file__).with_name("runner.py")
CHILD_FILES = (RUNNER, Path(wire.__file__))  # 复制进工作文件夹的子进程代码：只用标准库与 torch，不需要 poetry_gpt
_reference_lock = threading.Lock()


def _static_problem(lesson: Lesson, data: bytes | str) -> tuple[str, str] | None:
    """不运行学习者的代码就能作出的判定 (判定, 中文说明)：读不了、太大、不能当 Python 运行、犯了本课的源码规则；
    都没有时为 None。data 是 read_source 的结果（读不了时是原因）。"""
    if isinstance(data, str):
        return "syntax", data
    if len(data) > MAX_FILE_BYTES:
        return "syntax", f"文件超过 {MAX_FILE_BYTES >> 20} MiB，不像是一份练习，没有检查"
    if problem := file_problem(data):
        return "syntax", problem
    try:
        problem = rule_problem(lesson, data.decode("utf-8-sig"))
    except (RecursionError, MemoryError):
        problem = "代码嵌套太深，查不了本课的源码规则"
    except Exception as e:  # check.py 的规则自己出错：课程的问题
        return "error", f"check.py 的源码规则出错（请告诉老师，这不是你的错）：{e}"
    return ("wrong", problem) if problem else None


def _run_exercise(
    lesson: Lesson, data: bytes, setup_data: bytes, n_cases: int, limits: Limits
) -> tuple[Run, dict | str | None, str, str | None]:
    """在一个新的临时工作文件夹里、受限的子进程中运行 runner.py：先把练习当脚本运行（可见检查），
    再逐个用例调用 solve。setup_data 是交给 runner 的设置（wire 格式，见 runner.py）。
    返回 (Run, read_answers 的结果（没跑完时为 None）, 练习的临时副本的路径, 碰到的绊线（没有时为 None）)。
    返回时子进程与临时文件都已清理。"""
    main = threading.current_thread() is threading.main_thread()
    with (
        interruptible() if main else contextlib.nullcontext(),
        scratch("check") as tmp,
        tempfile.TemporaryFile() as setup_file,
        tempfile.TemporaryFile() as answers,
        tempfile.TemporaryFile() as trips,
    ):
        work = Path(tmp)
        copy = work / "exercise.py"
        copy.write_bytes(data)
        child = [work / f.name for f in CHILD_FILES]
        for src, dst in zip(CHILD_FILES, child):
            dst.write_bytes(src.read_bytes())
        setup_file.write(setup_data)
        setup_file.seek(0)
        for f in (copy, *child):
            f.chmod(0o644)  # 沙箱里的学习者是 uid 65534：副本要让它读得到
        run = run_limited(
            [sys.executable, "-I", str(child[0]), str(copy), str(trips.fileno()), str(answers.fileno())],
            work,
            limits,
            stdin=setup_file,
            pass_fds=(answers.fileno(), trips.fileno()),
            readonly=[copy, *child],
        )
        tripped = _tripped(lesson, os.pread(trips.fileno(), 200, 0))
        result = (
            None if run.code is None or run.oom else read_answers(answers.fileno(), n_cases, expected_errors(lesson))
        )
    return run, result, str(copy), tripped


def _run_here(lesson: Lesson, path: Path, cases: list) -> tuple[Run, dict | str, str, None]:
    """与 _run_exercise 同样的返回，但在本进程里运行（runner.run：不 fork、不进沙箱、没有上限、不换绊线），
    交回的东西照样走一次 wire 往返、照样核对格式。只给 tests/lessons 的错解库用：几百个错解省掉几百次子进程。"""
    from . import runner  # 批改程序自己从不在本进程里运行练习：只有这条路要导入它

    raises = expected_errors(lesson)
    answers = runner.run(
        str(path), wire.decode(wire.encode(cases)), raises, fresh_result(lesson), _checks_saves(lesson)
    )
    try:
        result = checked(wire.decode(wire.encode(answers)), len(cases), raises)
    except wire.WireError as e:
        result = str(e)
    return Run(0, ""), result, str(path), None


def _checks_saves(lesson: Lesson) -> bool:
    """本课的 check.py 有 saved_problem：runner 要交回每次调用经 torch.save 存下的字节（见 runner._capture_saves）。"""
    return callable(getattr(lesson_check(lesson), "saved_problem", None))


def _tripped(lesson: Lesson, data: bytes) -> str | None:
    """runner 的绊线写下的名字：本课 TRIPWIRES 里的一个；没有碰绊线（或写进来的不是这样一个名字）时为 None。
    学习者往这个文件里写东西，最多只能让自己得到“答案错误”。"""
    text = data.decode("utf-8", "replace")
    return next((name for name in tripwires(lesson) if text.startswith(name)), None)


def _tripwire_reason(lesson: Lesson) -> str:
    """本课 FORBIDDEN 里写的第一条原因（说明为什么不许用）；没有时为空。"""
    forbidden = getattr(lesson_check(lesson), "FORBIDDEN", {})
    return next(iter(forbidden.values()), "")


def _failure(run: Run, result: dict | str | None, limits: Limits, named) -> tuple[str, str] | None:
    """子进程没有交回能比较的结果时的判定 (判定, 中文说明)：内存、时间用完，崩溃，交回的东西不合格式；
    交回了、正常退出时为 None。named(输出) 把其中临时副本的路径换成学习者认得的文件名。"""
    if run.oom:  # 先于时间：内存紧张时内核回收页面花的 CPU 也算在检查头上，可能同时用完
        return "crashed", f"内存超过上限：这次检查的全部进程连同写进内存盘的文件合计超过 {limits.memory_mb} MiB"
    if run.ran_out == "cpu":
        why = "是不是有死循环？"
        if limits.timeout < 5:  # 上限很短时，对的答案也可能死在导入 torch 上
            why += "上限这么短，光是导入 torch 就要一两秒，对的答案也可能来不及：可以把 --timeout 调大"
        return "timeout", f"CPU 时间用完：练习的代码算了超过 {limits.timeout:g} 秒还没结束（{why}）"
    if run.ran_out == "wall":
        return "timeout", (
            f"墙上时间超过 {wall_seconds(limits.timeout):g} 秒还没结束，CPU 时间却没用完"
            f"（是不是在 sleep、等输入或等别的进程？）"
        )
    if result is None:
        return classify_failure(run.code, named(run.tail))
    if isinstance(result, str):
        return "crashed", result
    if result["status"] == "ok" and run.code != 0:
        return classify_failure(run.code, named(run.tail))
    return None


def check_file(
    lesson: Lesson,
    path: Path,
    limits: Limits = Limits(),
    seed: int | None = None,
    source: bytes | None = None,
    shown: str | None = None,
    in_process: bool = False,
) -> Verdict:
    """检查一份练习：读文件与语法 → 本课的源码规则（rule_problem）→ 可见检查 → 差分检查
    （后两步在同一个受限子进程里）。

    source 给出时用它作文件内容（./poet grade 批改前就读进了内存），否则读 path；
    shown 是消息里代替临时副本路径的名字（默认 path）。limits.timeout 是整次检查的时间上限（秒）。
    in_process 只给错解库（tests/lessons/lesson_bank.py）：练习在本进程里运行（_run_here），别的步骤都一样。
    学习者文件只会被读，不会被改；任何学习者文件都只会得到一个判定，不会抛异常
    （Ctrl-C 与 SIGTERM 例外：KeyboardInterrupt，子进程与临时文件夹此前都已清理）。
    """
    started = time.monotonic()
    seed = default_seed(lesson) if seed is None else seed
    shown = shown or str(path)

    def verdict(kind: str, message: str, cpu: float | None = 0.0) -> Verdict:  # 没运行学习者的代码时 CPU 是 0
        cpu = None if cpu is None else round(cpu, 2)
        return Verdict(kind, safe_text(message, MESSAGE_CHARS), round(time.monotonic() - started, 2), cpu)

    data = read_source(Path(path)) if source is None else source
    if early := _static_problem(lesson, data):
        return verdict(*early)
    try:
        with _reference_lock:  # ./poet grade 多线程批改：每课的参考输出只算一次
            cases, expected = reference(lesson, seed)
        if not in_process:
            setup = {
                "cases": cases,
                "raises": list(expected_errors(lesson)),
                "fresh": fresh_result(lesson),
                "tripwires": list(tripwires(lesson)),
                "saves": _checks_saves(lesson),
                "sandboxed": limits.sandbox and sandbox.unavailable_reason() is None,
            }
            setup_data = wire.encode(setup, limit=OUTPUT_LIMIT)
    except Exception as e:  # 课程自身的问题，不是学习者的
        return verdict("error", f"参考答案或 check.py 出错（请告诉老师，这不是你的错）：{e}")
    if in_process:
        run, result, copy, tripped = _run_here(lesson, Path(path), cases)
    else:
        run, result, copy, tripped = _run_exercise(lesson, data, setup_data, len(cases), limits)

    def named(text: str) -> str:  # 错误栈里写学习者认得的文件名，而不是临时副本的路径
        return text.replace(copy, shown)

    if tripped:  # 绊线由批改程序自己的文件报回：先于别的一切（碰了绊线的进程是被 SIGKILL 结束的）
        return verdict(
            "wrong",
            f"差分检查时调用了 {tripped}：本课不许用它（源码里没写出它的名字，运行时碰上了批改程序换上的绊线）。"
            f"{_tripwire_reason(lesson)}",
            run.cpu,
        )
    if failed := _failure(run, result, limits, named):
        return verdict(*failed, run.cpu)
    kind, message = judge(lesson, cases, expected, result)
    return verdict(kind, named(message), run.cpu)
