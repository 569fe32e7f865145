"""每一课的参考答案在 ./poet check 的默认上限下检查一次用掉多少 CPU：逐课把 lessons/NN/solution.py 交给 check_file
（与 ./poet check 同样的沙箱与限制：Limits() 的默认值，两个计算线程），印出时间上限算的那个数（Verdict.cpu_seconds：
这次检查的全部进程用掉的 CPU 秒数）、它占默认上限（defaults.CHECK_TIMEOUT_S）的比例与判定。

CONTRIBUTING.md 的“检查的时间上限”一节引这里的表。每课不超过 defaults.REFERENCE_SHARE 由
tests/lessons/test_all_lessons.py 检查（用 verify 那次检查的数，一个计算线程）。CPU 时间受机器负载的影响比墙上时间
小得多，但也不是定数，所以一起印出开始时的负载。

    nice -n 5 .venv/bin/python bench/check_cpu.py [--lessons 9,15-20] [--json]
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

from courseware.catalogue import CATALOGUE
from courseware.cli.parser import ChineseParser
from courseware.defaults import CHECK_TIMEOUT_S, REFERENCE_SHARE
from courseware.grading import Limits, check_file
from courseware.grading.classroom import ClassroomError, parse_lessons
from courseware.selfcheck.record import cpu_name


def measure(lessons) -> Iterator[dict]:
    """逐课检查参考答案（默认上限），检查完一课交出一课：{lesson, cpu_seconds, share, verdict}。
    本机记不了 CPU 秒数（没有 cgroup）时 cpu_seconds 与 share 为 None。"""
    for lesson in lessons:
        v = check_file(lesson, lesson.folder / "solution.py", Limits())
        share = None if v.cpu_seconds is None else v.cpu_seconds / CHECK_TIMEOUT_S
        yield {"lesson": lesson.code, "cpu_seconds": v.cpu_seconds, "share": share, "verdict": v.label}


def row_text(row: dict) -> str:
    """表的一行（Markdown）：课号、CPU 秒数、占默认上限的比例（超过 REFERENCE_SHARE 时写明）、判定。"""
    if row["cpu_seconds"] is None:
        return f"| {row['lesson']} | 记不了 | — | {row['verdict']} |"
    over = f"（超过 {REFERENCE_SHARE:.0%}）" if row["share"] > REFERENCE_SHARE else ""
    return f"| {row['lesson']} | {row['cpu_seconds']:.1f} | {row['share']:.0%}{over} | {row['verdict']} |"


def main() -> int:
    parser = ChineseParser(description="逐课量参考答案的一次检查用掉多少 CPU（默认上限下）")
    parser.add_argument("--lessons", metavar="课号", help="只量这几课，如 9,15-20（默认全部已写好的课）")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    try:
        lessons = parse_lessons(args.lessons) if args.lessons else [l for l in CATALOGUE if l.available]
    except ClassroomError as e:
        parser.error(str(e))
    load = os.getloadavg()[0]
    if not args.json:
        print(f"机器：{cpu_name()}，{os.cpu_count()} 核；开始时的 1 分钟平均负载 {load:.2f}")
        print(f"默认上限：每份练习 {CHECK_TIMEOUT_S:g} 秒 CPU；参考答案最多用 {REFERENCE_SHARE:.0%}\n")
        print("| 课 | CPU 秒 | 占默认上限 | 判定 |\n|---|---|---|---|")
    rows = []
    for row in measure(lessons):
        rows.append(row)
        if not args.json:
            print(row_text(row), flush=True)
    worst = max(rows, key=lambda r: r["cpu_seconds"] or 0.0)
    fine = all(r["verdict"] == "通过" and r["share"] is not None and r["share"] <= REFERENCE_SHARE for r in rows)
    if args.json:
        summary = {
            "cpu": cpu_name(),
            "cores": os.cpu_count(),
            "load_1min": round(load, 2),
            "timeout_seconds": CHECK_TIMEOUT_S,
            "reference_share": REFERENCE_SHARE,
            "lessons": rows,
        }
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    elif worst["cpu_seconds"] is not None:
        print(f"\n最多的是第 {worst['lesson']} 课：{worst['cpu_seconds']:.1f} 秒，占默认上限的 {worst['share']:.0%}。")
    return 0 if fine else 1


if __name__ == "__main__":
    sys.exit(main())
