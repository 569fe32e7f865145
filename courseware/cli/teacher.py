"""老师的命令：批改全班（grade）。"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from datetime import datetime
from pathlib import Path

from ..catalogue import EXERCISE
from ..defaults import CHECK_MEMORY_MB, CHECK_TIMEOUT_S, WALL_EXTRA_S, WALL_FACTOR
from . import display, tables
from .display import console
from .parser import CliError, jobs, memory_mb, seconds, seed


def cmd_grade(args) -> int:
    from ..grading import Limits, classroom, gradebook, probe, sandbox  # 导入 torch 较慢，只在需要时导入

    n_jobs = args.jobs or os.cpu_count() or 1
    limits = Limits(
        timeout=args.timeout,
        memory_mb=args.memory,
        threads=1 if n_jobs > 1 else 2,
        hidden=(os.path.abspath(args.class_dir),),  # 班级文件夹在沙箱里看不见，放在哪里都一样
    )
    # 每次批改用新的随机用例（--seed 可以重现某一次）：抄下 ./poet check 报出的答案凑不出“通过”
    case_seed = secrets.randbelow(2**31) if args.seed is None else args.seed
    try:
        with contextlib.ExitStack() as held:
            gradebook.check_report_paths(Path(args.class_dir), args.csv, args.json)
            held.enter_context(gradebook.reports_locked(args.csv, args.json))  # 同一份报告同时只有一个批改在写
            lessons = classroom.lessons_to_grade(args.lessons, limits, n_jobs)
            n_jobs, fitted = classroom.fit_jobs(n_jobs, limits.memory_mb)  # 同时几份要放得进这台机器真能用的内存
            roster = classroom.find_submissions(Path(args.class_dir), lessons)
            tables.roster(classroom.shown_name(args.class_dir, classroom.SHOWN_PATH), roster, args.lessons, EXERCISE)
            columns = classroom.columns_of(roster, lessons, args.lessons, args.class_dir)
            machine = sandbox.machine(limits.sandbox)  # 只探一次：开头的说明与 JSON 报告都读它
            notice = sandbox.fallback_notice(machine) if limits.sandbox else "注意：沙箱已关闭，检查只按进程隔离。"
            for line in (notice, fitted):
                if line:
                    display.notice(line)
            with display.busy("试跑检查进程 …"):
                problem = probe(limits)
            if problem:
                raise classroom.ClassroomError(f"批改没有开始：{problem}")
            console.print(
                f"{sandbox.protection(limits.memory_mb, limits.timeout, machine)}。", markup=False, highlight=False
            )
            console.print(
                f"批改 {len(roster.submissions)} 份练习：每份 CPU 时间上限 {limits.timeout:g} 秒，"
                f"内存上限 {limits.memory_mb} MiB，同时 {n_jobs} 份"
                f"{'，每份关在 bubblewrap 沙箱里' if machine.sandboxed else ''}；"
                f"随机用例的种子 {case_seed}（--seed {case_seed} 可以重现这次批改）。"
            )
            log = gradebook.open_partial(args.csv, args.json)  # 批改程序被杀掉时，已批改的留在这里
            held.callback(log.close)
            for earlier in log.earlier:
                display.notice(
                    f"注意：{earlier} 是以前一次没有批完（被杀掉）的批改留下的记录，原样留着没有动"
                    f"{f'；这次边批边写到 {log.path}' if log.path else ''}。"
                )
            results, started, graded_at = grade_class(args, roster, columns, limits, machine, n_jobs, case_seed, log)
            wall = time.monotonic() - started
            tables.grade_table(
                roster.learners,
                columns,
                results,
                gradebook.pass_rates(roster.learners, columns, results),
                gradebook.kind_counts(results),
                limits.timeout,
                gradebook.MISSING,
                wall,
            )
            if args.details:
                tables.grade_details(roster.learners, columns, results)
            texts = reports(args, roster, columns, results, limits, machine, n_jobs, started, case_seed, graded_at)
            log.close()
            gradebook.write_reports(args.csv, args.json, *texts, log.path)
    except classroom.ClassroomError as e:
        raise CliError(str(e)) from None
    for path, what in (
        (args.csv, "CSV（UTF-8 带 BOM，Excel 可直接打开）"),
        (args.json, "JSON（每个判定的消息与用时）"),
    ):
        if path:
            console.print(f"已写出 {what}：{path}", markup=False)
    return 0


def grade_class(args, roster, columns, limits, machine, n_jobs, seed, log) -> tuple[dict, float, str]:
    """批改全班，带进度条，每份批完记进 log（gradebook.open_partial）；返回 (判定, 开始的 time.monotonic(), 批改时间)。
    Ctrl-C 时先写出已经批改的（部分报告，write_partial），再让 KeyboardInterrupt 照常传上去。"""
    from ..grading import classroom

    started, graded_at = time.monotonic(), datetime.now().astimezone().isoformat(sep=" ", timespec="seconds")
    graded: dict = {}  # 批改完一份记一份
    with tables.grading_progress(len(roster.submissions)) as done:

        def record(sub, verdict) -> None:
            graded[(sub.learner, sub.lesson.code)] = verdict
            done(sub, verdict)

        try:
            return classroom.grade(roster, limits, n_jobs, record, seed, log=log.file), started, graded_at
        except KeyboardInterrupt:
            pending = set(roster.submissions) - set(graded)
            texts = reports(args, roster, columns, graded, limits, machine, n_jobs, started, seed, graded_at, pending)
            log.close()
            write_partial(args, *texts, len(graded), len(pending), log.path)
            raise


def reports(
    args, roster, columns, results, limits, machine, n_jobs, started, seed, graded_at, pending=()
) -> tuple[str, str]:
    """(CSV, JSON) 两份报告的文字；machine 是批改开始时探到的隔离（sandbox.Machine）；
    pending 不空时是批改被中断时的部分报告（gradebook.report_csv）。"""
    from ..grading import gradebook

    wall = time.monotonic() - started
    return (
        gradebook.report_csv(roster.learners, columns, results, seed, graded_at, pending, roster.untouched),
        gradebook.report_json(
            Path(args.class_dir), roster, columns, results, limits, machine, n_jobs, wall, seed, graded_at, pending
        ),
    )


def write_partial(args, csv_text: str, json_text: str, graded: int, pending: int, log_path) -> None:
    """批改被中断（Ctrl-C、SIGTERM）时：把已经批改的写进 --csv、--json，标明是部分报告（还没批改的写作“未批改”），
    再删掉这次边批边写的记录 log_path。"""
    from ..grading import classroom, gradebook

    try:
        gradebook.write_reports(args.csv, args.json, csv_text, json_text, log_path)
    except classroom.ClassroomError as e:
        display.error(str(e))
        return
    for path in (args.csv, args.json):
        if path:
            console.print(f"已写出部分报告（批改被中断：{graded} 份已批改，{pending} 份未批改）：{path}", markup=False)


def register(sub) -> None:
    """把老师的命令加到 poet 的子命令里。"""
    p = sub.add_parser("grade", help="老师用：批改全班每个学习者的每一课，输出成绩表与 CSV/JSON 报告")
    p.add_argument(
        "class_dir", metavar="班级文件夹", help=f"班级文件夹：每个学习者一个子文件夹，放 NN.py 或 lessons/NN/{EXERCISE}"
    )
    p.add_argument("--lessons", metavar="课号", help="只批改这些课，如 8-10,14（默认：班里有人交了的全部课）")
    p.add_argument(
        "--timeout",
        type=seconds,
        default=CHECK_TIMEOUT_S,
        metavar="秒数",
        help=f"每份练习的 CPU 时间上限（秒，默认 {CHECK_TIMEOUT_S:g}；墙上时间另有 {WALL_FACTOR} 倍加 {WALL_EXTRA_S} 秒的后备上限）",
    )
    p.add_argument(
        "--memory",
        type=memory_mb,
        default=CHECK_MEMORY_MB,
        metavar="MiB",
        help=f"每个检查进程的内存上限（MiB，默认 {CHECK_MEMORY_MB}）",
    )
    p.add_argument("--jobs", type=jobs, metavar="份数", help="同时批改几份（默认：CPU 核数）")
    p.add_argument(
        "--csv", metavar="文件", help="把成绩表写成 CSV（….csv，不放在班级文件夹里；UTF-8 带 BOM，Excel 可直接打开）"
    )
    p.add_argument(
        "--seed",
        type=seed,
        metavar="种子",
        help="随机用例的种子（默认每次批改随机取一个，印在输出里；给同一个种子就重现那次批改）",
    )
    p.add_argument("--json", metavar="文件", help="把每个判定（含消息与用时）写成 JSON（….json）")
    p.add_argument("--details", action="store_true", help="成绩表之后逐份列出没通过的原因（消息的第一行）")
    p.set_defaults(func=cmd_grade)
