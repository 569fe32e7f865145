"""核对检查子进程交回的东西（答案文件的格式、退出方式）：它不可信，格式不对、太大、太深、类型奇怪，
都只是一个“崩溃”判定的原因，从不原样交给比较程序。"""

from __future__ import annotations

import os
import signal

from . import wire
from .verdict import CHILD_STATUSES, OUTPUT_LIMIT, SHOWN_CHARS, capped


def _call_ok(call, raises: tuple[str, ...]) -> bool:
    """一次调用的记录是 [RETURNED, 值]，或 [RAISED, 本课 RAISES 里的异常名]。"""
    return (
        type(call) is list
        and len(call) == 2
        and (call[0] == wire.RETURNED or (call[0] == wire.RAISED and type(call[1]) is str and call[1] in raises))
    )


def read_answers(fd: int, n_cases: int, raises: tuple[str, ...] = ()) -> dict | str | None:
    """读子进程交回的答案并严格核对格式。raises 是本课的 RAISES：只有这些异常名能出现在 RAISED 的记录里。

    Returns:
        None：什么也没交回；str：交回的东西不合格式（中文原因）；
        dict：{"status": "ok", "calls": [n_cases 个 (第一次, 第二次, 快照)]}，每次调用是 wire.Raised(异常名)
        或返回的值（RETURNED 的内容）；快照是每次调用的 [调用之后的参数, 改写结果之后的参数或 None, 存档或 None]（见 runner.differential）；
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
    return checked(result, n_cases, raises)


def checked(result, n_cases: int, raises: tuple[str, ...] = ()) -> dict | str:
    """核对解码之后的结果（字段、用例数、每次调用的标签）：合格式时是 read_answers 说的 dict，否则是中文原因。"""
    if type(result) is not dict or type(result.get("status")) is not str:
        return "程序交回的结果不合格式：缺少 status"
    status = result["status"]
    if status == "ok":
        calls = result.get("calls")
        if set(result) != {"status", "calls"} or type(calls) is not list or len(calls) != n_cases:
            return f"程序交回的结果不合格式：应有 {n_cases} 个用例的结果"
        if not all(
            type(c) is list
            and len(c) == 3
            and _call_ok(c[0], raises)
            and _call_ok(c[1], raises)
            and type(c[2]) is list
            and 1 <= len(c[2]) <= 2
            and all(type(shot) is list and len(shot) == 3 for shot in c[2])
            for c in calls
        ):
            return "程序交回的结果不合格式：每个用例应是“返回了值”或“raise 了本课的异常”"
        unpack = lambda call: wire.Raised(call[1]) if call[0] == wire.RAISED else call[1]  # noqa: E731
        return {"status": "ok", "calls": [(unpack(first), unpack(second), shots) for first, second, shots in calls]}
    if status in CHILD_STATUSES and set(result) == {"status", "message"} and type(result["message"]) is str:
        result["message"] = capped(result["message"])
        return result
    return "程序交回的结果不合格式：status 或字段不对"


def classify_failure(code: int, output: str) -> tuple[str, str]:
    """进程没有交回结果（或交回后异常退出）时，按退出方式判定。"""
    if code < 0 or code > 128:
        sig = -code if code < 0 else code - 128
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        why = {"SIGXFSZ": "输出太多", "SIGKILL": "可能用光了内存", "SIGSEGV": "可能是递归太深"}.get(name, "")
        return "crashed", f"进程被信号 {name} 终止{('（' + why + '）') if why else ''}"
    if "MemoryError" in output[-500:]:
        return "crashed", "内存超过上限"
    tail = output[-SHOWN_CHARS:].strip()
    if code == 0:  # 正常退出却没交回答案：solve 里（或导入时）调用了 os._exit(0)、sys.exit 之类，印出来的“通过”不算数
        return "crashed", (
            "程序没有交回答案就退出了（退出码 0，多半是代码里调用了 os._exit 或 sys.exit）：批改程序拿不到 solve 的结果，"
            "算作崩溃；它自己印出的“通过”不算数，值得打开代码看一看" + (f"。它最后印出的是：\n{tail}" if tail else "")
        )
    return "crashed", f"程序以退出码 {code} 结束，没有完成检查" + (f"：\n{tail}" if tail else "")
