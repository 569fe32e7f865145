"""老师的命令：批改全班（grade）。"""
from __future__ import annotations

import os

from .learner import EXERCISE
from .parser import CliError, jobs, memory_mb, seconds


def cmd_grade(args) -> int:
    from ..classroom import ClassroomError, grade_class
    from ..grading import Limits

    n_jobs = args.jobs or os.cpu_count() or 1
    limits = Limits(timeout=args.timeout, memory_mb=args.memory, threads=1 if n_jobs > 1 else 2)
    try:
        return grade_class(args.class_dir, args.lessons, limits, n_jobs, args.csv, args.json)
    except ClassroomError as e:
        raise CliError(str(e)) from None


def register(sub) -> None:
    """把老师的命令加到 poet 的子命令里。"""
    p = sub.add_parser("grade", help="老师用：批改全班每个学习者的每一课，输出成绩表与 CSV/JSON 报告")
    p.add_argument("class_dir", metavar="CLASS", help=f"班级文件夹：每个学习者一个子文件夹，放 NN.py 或 lessons/NN/{EXERCISE}")
    p.add_argument("--lessons", help="只批改这些课，如 8-10,14（默认：班里有人交了的全部课）")
    p.add_argument("--timeout", type=seconds, default=20.0, help="每份练习的检查时间上限（秒，默认 20）")
    p.add_argument("--memory", type=memory_mb, default=2048, help="每个检查进程的内存上限（MiB，默认 2048）")
    p.add_argument("--jobs", type=jobs, help="同时批改几份（默认：CPU 核数）")
    p.add_argument("--csv", help="把成绩表写成 CSV（UTF-8 带 BOM，Excel 可直接打开）")
    p.add_argument("--json", help="把每个判定（含消息与用时）写成 JSON")
    p.set_defaults(func=cmd_grade)
