"""学习进度：每一课 not started（没有记录）/ started / passed，存在工作区的 .progress.json 里。

读时不信任文件（可能是管道、很大、看不懂、有几项写错），写时先写临时文件再改名（原子地）。
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from pathlib import Path

from poetry_gpt.common import atomic_write_text, os_reason

from . import catalogue
from .catalogue import Lesson
from .messages import safe_text


def progress_file() -> Path:
    """学习者的进度文件：工作区（catalogue.workspace()）里的 .progress.json。"""
    return catalogue.workspace() / ".progress.json"


STATUS_LABEL = {"passed": "已通过", "started": "已开始", None: "未开始"}
_STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
_VERDICT = re.compile(r"[^\x00-\x1f\x7f-\x9f]{1,20}")
"""last_verdict 是批改的判定标签（“答案错误”这样的几个字）：不收控制字符，也不会很长。"""


class ProgressError(ValueError):
    """进度文件的位置上是文件夹，或读不了；消息是给学习者看的中文。"""


def _fits(entry) -> bool:
    """一课的进度记录合不合格式：{"status": "passed" 或 "started", 可选 "updated": 时间, 可选 "last_verdict": 标签}。"""
    fields = {"status": None, "updated": _STAMP, "last_verdict": _VERDICT}
    return (
        isinstance(entry, dict)
        and entry.get("status") in ("passed", "started")
        and all(
            key in fields and (fields[key] is None or isinstance(value, str) and fields[key].fullmatch(value))
            for key, value in entry.items()
        )
    )


def _set_aside(path: Path, kept: dict) -> str:
    """把看不懂的进度文件原样改名另存为 .progress.json.broken-时间（同一秒里再来一次也不盖掉上一个），
    再把还能用的记录 kept 原子地写回 path（空的就不写）。返回给警告用的半句话。"""
    backup = catalogue.backup_path(lambda stamp: path.with_name(f"{path.name}.broken-{stamp}"))
    try:
        os.replace(path, backup)
        if kept:
            atomic_write_text(path, _progress_json(kept))
    except OSError as e:  # 只读的文件夹：这次照样用还能用的记录，原文件不动
        return f"原文件没能另存（{os_reason(e)}），保持原样"
    return f"原文件已另存为 {backup.name}"


def load_progress(path: Path | None = None) -> dict:
    """读进度文件（默认 progress_file()）；没有时是空进度。返回 课号 → {"status", "updated", "last_verdict"}。

    只读普通文件、最多 PROGRESS_BYTES 字节：是管道、设备或更大时与看不懂一样处理。
    读得到却看不懂（不是 UTF-8、不是 JSON、不是字典）时，把它改名另存为 .progress.json.broken-时间，
    在标准错误上说一行，再当作空进度——从不悄悄覆盖。是字典、但有几课的记录不合格式（课号不在课表里、
    状态不是 passed/started、时间或判定不是文字……）时，同样先另存原文件，丢掉这几课、留下其余的，
    写回（原子地），并说一行是哪几课。

    Raises:
        ProgressError: 那个位置上是文件夹，或没有权限读。
    """
    path = progress_file() if path is None else path
    if path.is_dir():
        raise ProgressError(f"进度文件 {path} 的位置上是一个文件夹：请把它移走或改名后再运行。")
    try:
        raw = _read_regular(path)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ProgressError(f"读不了进度文件 {path}：{os_reason(e)}") from None
    try:
        data = None if raw is None else json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # 含 UnicodeDecodeError；嵌套极深的 JSON 是 RecursionError
        data = None
    if not isinstance(data, dict):
        print(f"警告：进度文件 {path.name} 读不出来，{_set_aside(path, {})}，进度从头记起。", file=sys.stderr)
        return {}
    codes = {lesson.code for lesson in catalogue.CATALOGUE}
    progress = {code: entry for code, entry in data.items() if code in codes and _fits(entry)}
    if len(progress) < len(data):
        bad = sorted(safe_text(k, 20, one_line=True) for k in data if k not in progress)  # 键原样到不了终端
        dropped = "、".join(bad[:10]) + (f" 等 {len(bad)} 项" if len(bad) > 10 else "")
        print(
            f"警告：进度文件 {path.name} 里这几项记录看不懂，已不算数：{dropped}；{_set_aside(path, progress)}，"
            f"其余的课照常记着。",
            file=sys.stderr,
        )
    return progress


PROGRESS_BYTES = 1 << 20
"""进度文件最多读这么多字节（26 课的记录不到 5 KiB）。"""


def _read_regular(path: Path) -> bytes | None:
    """进度文件的内容；它不是普通文件（管道、设备、指向 /dev/zero 的链接）或超过 PROGRESS_BYTES 时为 None——
    这时不读它（管道不会卡住，/dev/zero 不会读个没完）。

    Raises:
        OSError: 打不开（FileNotFoundError：没有这个文件）。
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > PROGRESS_BYTES:
            return None
        data = f.read(PROGRESS_BYTES + 1)
    return data if len(data) <= PROGRESS_BYTES else None


def _progress_json(progress: dict) -> str:
    return json.dumps(progress, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def record_progress(
    lesson: Lesson, status: str, verdict: str | None = None, path: Path | None = None, restart: bool = False
) -> None:
    """记下一课的状态（写进 path，默认 progress_file()）。已经通过的课不会因为后来的一次失败变回“已开始”；
    restart（./poet start --force：学习者自己要重来）时丢掉这一课以前的记录，“已通过”也不留。"""
    path = progress_file() if path is None else path
    progress = load_progress(path)
    entry = {} if restart else progress.get(lesson.code, {})
    if entry.get("status") == "passed" and status != "passed":
        status = "passed"
    entry.update(status=status, updated=time.strftime("%Y-%m-%d %H:%M:%S"))
    if verdict:
        entry["last_verdict"] = verdict
    progress[lesson.code] = entry
    atomic_write_text(path, _progress_json(progress))


def status_of(lesson: Lesson, progress: dict) -> str | None:
    return progress.get(lesson.code, {}).get("status")


def next_lesson(lessons, progress: dict) -> tuple[Lesson, str] | None:
    """课程地图上的“下一步”：跟着学习者最近一次动过的课走。返回 (课, "started" 或 None)，全部通过时为 None。

    最近动过的一课（updated 最晚，同一时刻取课号大的）还没通过：就是它，接着做；已经通过：它后面第一课没通过的；后面都通过了，
    再从头找。没有任何记录时是第一课。"""
    remaining = [l for l in lessons if l.available and status_of(l, progress) != "passed"]
    if not remaining:
        return None
    touched = [l for l in lessons if l.code in progress]
    if not touched:
        return remaining[0], None
    latest = max(touched, key=lambda l: (progress[l.code].get("updated", ""), l.number))  # 同一时刻：课号大的
    if status_of(latest, progress) == "started" and latest.available:
        return latest, "started"
    after = next((l for l in remaining if l.number > latest.number), remaining[0])
    return after, status_of(after, progress)
