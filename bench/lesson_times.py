"""每一课的实验要多久：逐课运行 lessons/NN/experiment.py，印出墙上时间、子进程用掉的 CPU 时间与机器的负载。

README.md 的“用时”一节概括这里的数。实验与 ./poet lesson 一样用 defaults.EXPERIMENT_THREADS 个计算线程
（--threads 可改）。墙上时间受别的程序影响很大（机器忙时慢几倍）；CPU 时间（user + sys）受得少一些，但也不是
定数（同一课在忙与不忙时测，CPU 时间能差一倍），所以每次都一起印出负载。--against 2 再用 2 个线程跑一遍同一课，
印出两者墙上时间的比（同一次运行、同样的负载下比）。

    .venv/bin/python bench/lesson_times.py [--lessons 9,15,20] [--threads 1] [--against 2] [--json]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

from courseware.catalogue import BY_NUMBER, CATALOGUE
from courseware.cli.parser import ChineseParser, jobs
from courseware.defaults import EXPERIMENT_THREADS
from poetry_gpt.common import ROOT


def run_one(number: int, threads: int = EXPERIMENT_THREADS) -> dict:
    """用 threads 个计算线程跑一课的实验（输出丢掉），返回墙上秒数、子进程的 CPU 秒数与开始时的 1 分钟平均负载。"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    code = subprocess.call(
        [sys.executable, str(BY_NUMBER[number].folder / "experiment.py")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "OMP_NUM_THREADS": str(threads)},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "lesson": f"{number:02d}",
        "exit_code": code,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "load_1min": round(load, 2),
    }


def main() -> int:
    parser = ChineseParser(description="逐课计时实验：墙上时间、CPU 时间与负载")
    parser.add_argument("--lessons", metavar="课号", help="只计这几课，如 9,15,20（默认全部已写好的课）")
    parser.add_argument(
        "--threads",
        type=jobs,
        default=EXPERIMENT_THREADS,
        metavar="个数",
        help=f"计算线程（默认 {EXPERIMENT_THREADS}，与 ./poet lesson 相同）",
    )
    parser.add_argument("--against", type=jobs, metavar="个数", help="再用这么多个线程跑一遍，印出两者墙上时间的比")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    numbers = (
        [int(n) for n in args.lessons.replace("，", ",").split(",")]
        if args.lessons
        else [l.number for l in CATALOGUE if l.available]
    )
    rows = []
    for n in numbers:
        rows.append(run_one(n, args.threads))
        if args.against:
            other = run_one(n, args.against)
            rows[-1]["against"] = {"threads": args.against, **other}
            rows[-1]["ratio"] = round(other["wall_seconds"] / max(rows[-1]["wall_seconds"], 0.05), 2)
        if not args.json:
            r = rows[-1]
            print(
                f"第 {r['lesson']} 课：墙上 {r['wall_seconds']:6.1f} 秒  CPU {r['cpu_seconds']:6.1f} 秒  "
                f"负载 {r['load_1min']:.2f}{'' if r['exit_code'] == 0 else '  退出码 ' + str(r['exit_code'])}"
                + (
                    f"  {args.against} 个线程：墙上 {r['against']['wall_seconds']:.1f} 秒，是它的 {r['ratio']} 倍"
                    if args.against
                    else ""
                ),
                flush=True,
            )
    summary = {
        "cpus": os.cpu_count(),
        "threads": args.threads,
        "lessons": rows,
        "total_wall_seconds": round(sum(r["wall_seconds"] for r in rows), 1),
        "total_cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 1),
    }
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    else:
        print(
            f"{os.cpu_count()} 核；合计墙上 {summary['total_wall_seconds']} 秒，CPU {summary['total_cpu_seconds']} 秒。"
        )
    return 0 if all(r["exit_code"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
