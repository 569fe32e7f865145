"""批改全班：./poet grade CLASS 用的发现、并行批改、成绩表与 CSV/JSON 报告。

每份练习都交给 poetry_gpt.courseware.grading.check_file：它在自己的子进程里运行学习者的文件（临时工作
文件夹、干净的环境、时间与内存上限）。这里只负责找文件、排队、汇总。

学习者文件在开始批改前就整份读进内存，每次检查前再写进一个只属于这次检查的临时文件夹，
所以一个学习者的程序改写或删除班级文件夹里别人的文件，也改变不了别人的判定。
这是“按进程隔离”，不是安全沙箱：学习者的代码能读写这台机器上当前用户能碰到的一切。
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from ..common import atomic_write_bytes, atomic_write_text
from .catalogue import BY_NUMBER, CATALOGUE, EXERCISE, Lesson
from .grading import VERDICTS, Limits, Verdict, check_file, default_seed, lesson_check, reference

MISSING = "缺"
"""某个学习者没有交某一课时，成绩表与报告里写的标签。"""
MAX_FILE_BYTES = 1 << 20  # 超过 1 MiB 的“练习文件”不读进内存，直接判为语法错误

_NESTED = re.compile(rf"lessons/(\d{{1,2}})/{re.escape(EXERCISE)}")
_FLAT = re.compile(r"(\d{1,2})\.py")


class ClassroomError(ValueError):
    """班级文件夹或参数有问题；消息是给老师看的中文。"""


@dataclass
class Submission:
    """一个学习者交的一课：rel 是相对班级文件夹的路径；source 是批改前读进内存的内容。"""

    learner: str
    lesson: Lesson
    rel: str
    source: bytes | None  # None：文件太大，没有读


@dataclass
class Roster:
    """在班级文件夹里找到的东西。"""

    learners: list[str] = field(default_factory=list)
    submissions: dict[tuple[str, str], Submission] = field(default_factory=dict)  # (学习者, 课号) → 提交
    ignored: list[str] = field(default_factory=list)  # “路径：原因”
    skipped: int = 0  # 认得出、但不在 --lessons 范围内的文件数

    def layout_counts(self) -> tuple[int, int]:
        """(NN.py 的份数, lessons/NN/my_exercise.py 的份数)。"""
        nested = sum(s.rel.startswith("lessons/") for s in self.submissions.values())
        return len(self.submissions) - nested, nested


def parse_lessons(text: str) -> list[Lesson]:
    """把 "8-10,14" 解析成课表里已写好的课；还没写好的课跳过。

    Raises:
        ClassroomError: 写法不对、课号不在 1–26，或范围里一课可用的都没有。
    """
    numbers: list[int] = []
    for part in text.replace("，", ",").split(","):
        m = re.fullmatch(r"\s*(\d{1,2})\s*(?:-\s*(\d{1,2})\s*)?", part)
        if not m:
            raise ClassroomError(f"--lessons 写法不对：“{part.strip()}”。请写成 8-10,14 这样。")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if lo > hi or lo not in BY_NUMBER or hi not in BY_NUMBER:
            raise ClassroomError(f"--lessons 里的“{part.strip()}”不对：课号在 1–{len(CATALOGUE)} 之间，范围小的在前。")
        numbers.extend(range(lo, hi + 1))
    lessons = [BY_NUMBER[n] for n in sorted(set(numbers)) if BY_NUMBER[n].available]
    if not lessons:
        raise ClassroomError(f"--lessons {text} 里的课都还没写好，没有可以批改的课。")
    return lessons


def find_submissions(class_dir: Path, lessons: list[Lesson]) -> Roster:
    """找出 CLASS/<学习者>/NN.py 与 CLASS/<学习者>/lessons/NN/my_exercise.py 两种布局的练习。

    只看这两个位置（学习者文件夹里的其他东西不翻）。同一个学习者同一课两种都有时，
    用 lessons/NN/my_exercise.py。文件内容在这里就读进内存。

    Raises:
        ClassroomError: class_dir 不存在或不是文件夹。
    """
    class_dir = Path(class_dir)
    if not class_dir.is_dir():
        what = "不是文件夹" if class_dir.exists() else "不存在"
        raise ClassroomError(f"班级文件夹 {class_dir} {what}。用法：./poet grade 班级文件夹，"
                             f"里面每个学习者一个文件夹，放 NN.py 或 lessons/NN/{EXERCISE}。")
    wanted = {lesson.number for lesson in lessons}
    roster = Roster()
    for folder in sorted(class_dir.iterdir()):
        if folder.name.startswith((".", "__")):
            continue
        if not folder.is_dir():
            roster.ignored.append(f"{folder.name}：不是学习者文件夹")
            continue
        found = 0
        # 先平铺、后嵌套：两种都有的课，嵌套布局的文件覆盖平铺的
        candidates = sorted(folder.glob("*.py")) + sorted(folder.glob(f"lessons/*/{EXERCISE}"))
        for path in candidates:
            rel = path.relative_to(folder).as_posix()
            shown = f"{folder.name}/{rel}"
            m = _FLAT.fullmatch(rel) or _NESTED.fullmatch(rel)
            if not m or not path.is_file():
                roster.ignored.append(f"{shown}：不是 NN.py 或 lessons/NN/{EXERCISE}")
                continue
            lesson = BY_NUMBER.get(int(m.group(1)))
            if lesson is None or not lesson.available:
                roster.ignored.append(f"{shown}：第 {int(m.group(1)):02d} 课不在课表里或还没写好")
                continue
            found += 1
            if lesson.number not in wanted:
                roster.skipped += 1
                continue
            key = (folder.name, lesson.code)
            if key in roster.submissions:
                roster.ignored.append(f"{folder.name}/{roster.submissions[key].rel}：同一课还有 {rel}，用后者")
            try:
                source = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else None
            except OSError as e:
                roster.ignored.append(f"{shown}：读不出来（{e.strerror}）")
                continue
            roster.submissions[key] = Submission(folder.name, lesson, rel, source)
        if found:
            roster.learners.append(folder.name)
        else:
            roster.ignored.append(f"{folder.name}/：里面没有认得出的练习文件")
    return roster


def grade_one(sub: Submission, limits: Limits) -> Verdict:
    """在一个只属于这次检查的临时文件夹里写出提交的内容，交给 check_file。"""
    if sub.source is None:
        return Verdict("syntax", f"文件超过 {MAX_FILE_BYTES >> 20} MiB，不像是一份练习，没有检查")
    with tempfile.TemporaryDirectory(prefix="poet-grade-") as tmp:
        copy = Path(tmp) / Path(sub.rel).name
        copy.write_bytes(sub.source)
        verdict = check_file(sub.lesson, copy, limits)
    verdict.message = verdict.message.replace(str(copy), sub.rel)  # 错误栈里写学习者认得的路径
    return verdict


def grade(roster: Roster, limits: Limits, jobs: int, on_done=None) -> dict[tuple[str, str], Verdict]:
    """并行批改 roster 里的每份提交。

    工作都在子进程里，所以用 jobs 个线程各自等一个 check_file 就够了。on_done(submission, verdict)
    在每份批改完时（主线程里）被调用，用来推进度条。

    Returns:
        (学习者, 课号) → Verdict；没交的课不在里面。
    """
    for lesson in {sub.lesson for sub in roster.submissions.values()}:
        # 在运行任何学习者代码之前载入 check.py、算好参考输出：之后谁改了课程文件也影响不到比较
        with contextlib.suppress(Exception):  # 课程自身出错时，check_file 会在每个判定里说明
            lesson_check(lesson)
            reference(lesson, default_seed(lesson))
    results: dict[tuple[str, str], Verdict] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = {pool.submit(grade_one, sub, limits): key for key, sub in roster.submissions.items()}
        for future in as_completed(futures):
            key = futures[future]
            results[key] = future.result()
            if on_done:
                on_done(roster.submissions[key], results[key])
    finally:  # Ctrl-C 时丢掉还没开始的，正在跑的几份在各自的时间上限内结束
        pool.shutdown(wait=False, cancel_futures=True)
    return results


def label(verdict: Verdict | None) -> str:
    return MISSING if verdict is None else verdict.label


def report_csv(learners: list[str], lessons: list[Lesson], results: dict) -> str:
    """一行一个学习者、一列一课（判定标签），最后一列是通过的课数。"""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["学习者", *(f"第{l.code}课" for l in lessons), "通过数"])
    for name in learners:
        cells = [results.get((name, l.code)) for l in lessons]
        writer.writerow([name, *map(label, cells), sum(bool(v and v.passed) for v in cells)])
    return out.getvalue()


def report_json(class_dir: Path, roster: Roster, lessons: list[Lesson], results: dict,
                limits: Limits, jobs: int, wall_seconds: float) -> str:
    """全部判定（含消息与用时）、限制设置与课程列表。"""
    cells = []
    for name in roster.learners:
        for lesson in lessons:
            sub = roster.submissions.get((name, lesson.code))
            v = results.get((name, lesson.code))
            cells.append({"learner": name, "lesson": lesson.code, "file": sub.rel if sub else None,
                          "kind": v.kind if v else "missing", "label": label(v),
                          "message": v.message if v else "没有交这一课", "seconds": v.seconds if v else 0.0})
    data = {
        "class": str(Path(class_dir).resolve()),
        "timeout_seconds": limits.timeout,
        "memory_mb": limits.memory_mb,
        "jobs": jobs,
        "wall_seconds": round(wall_seconds, 2),
        "lessons": [{"lesson": l.code, "title": l.title} for l in lessons],
        "learners": roster.learners,
        "ignored": roster.ignored,
        "verdicts": cells,
    }
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def write_reports(csv_path: str | None, json_path: str | None, csv_text: str, json_text: str) -> None:
    """原子地写出（或替换）报告。CSV 用带 BOM 的 UTF-8（utf-8-sig），中文 Windows 上的 Excel 双击就能正确打开。

    Raises:
        ClassroomError: 写不进去（消息写明路径与原因）。
    """
    for path, write in ((csv_path, lambda p: atomic_write_bytes(p, csv_text.encode("utf-8-sig"))),
                        (json_path, lambda p: atomic_write_text(p, json_text))):
        if path:
            try:
                write(path)
            except OSError as e:
                raise ClassroomError(f"写不了报告 {path}：{e.strerror or e}") from None


def pass_rates(learners: list[str], lessons: list[Lesson], results: dict) -> dict[str, tuple[int, int]]:
    """课号 → (通过人数, 学习者人数)。没交的算没通过。"""
    return {l.code: (sum(bool((v := results.get((n, l.code))) and v.passed) for n in learners), len(learners))
            for l in lessons}


def kind_counts(results: dict) -> dict[str, int]:
    counts = {kind: 0 for kind in VERDICTS}
    for v in results.values():
        counts[v.kind] += 1
    return counts


def lessons_in(roster: Roster, lessons: list[Lesson]) -> list[Lesson]:
    """班里至少有一人交了的课（按课号排）。"""
    codes = {code for _, code in roster.submissions}
    return [l for l in lessons if l.code in codes]


def _cell(verdict: Verdict | None) -> str:
    if verdict is None:
        return f"[dim]{MISSING}[/dim]"
    return "[green]✓[/green]" if verdict.passed else f"[red]✗ {verdict.label}[/red]"


def grade_class(class_dir: str, lessons_text: str | None, limits: Limits, jobs: int,
                csv_path: str | None = None, json_path: str | None = None) -> int:
    """./poet grade 的全过程：找文件 → 带进度条并行批改 → 成绩表 → 写报告。返回退出码 0。

    Raises:
        ClassroomError: 班级文件夹、--lessons 或参数有问题，或找不到任何学习者。
    """
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from ..labs import console

    if limits.timeout <= 0 or limits.memory_mb < 256 or jobs < 1:
        raise ClassroomError("--timeout 要大于 0 秒，--memory 至少 256 MiB，--jobs 至少为 1。")
    if lessons_text is not None and not lessons_text.strip():
        raise ClassroomError("--lessons 是空的。请写成 8-10,14 这样；不写这个选项就批改全部课。")
    lessons = parse_lessons(lessons_text) if lessons_text else [l for l in CATALOGUE if l.available]
    roster = find_submissions(Path(class_dir), lessons)
    flat, nested = roster.layout_counts()
    console.print(f"班级文件夹 {escape(str(class_dir))}：找到 {len(roster.learners)} 名学习者"
                  f"{'：' + escape('、'.join(roster.learners)) if roster.learners else ''}")
    console.print(f"  练习文件 {len(roster.submissions)} 份：NN.py {flat} 份，lessons/NN/{EXERCISE} {nested} 份")
    if roster.skipped:
        console.print(f"  不在 --lessons {escape(lessons_text or '')} 范围内、没有批改的文件 {roster.skipped} 份")
    if roster.ignored:
        console.print(f"  忽略 {len(roster.ignored)} 项：")
        for line in roster.ignored[:20]:
            console.print(f"    {escape(line)}")
        if len(roster.ignored) > 20:
            console.print(f"    …还有 {len(roster.ignored) - 20} 项（全部写在 --json 报告里）")
    if not roster.learners:
        raise ClassroomError(f"{class_dir} 里没有找到学习者：每个学习者一个文件夹，放 NN.py 或 lessons/NN/{EXERCISE}。")
    columns = lessons if lessons_text else lessons_in(roster, lessons)
    if not columns:
        raise ClassroomError("没有要批改的练习：找到的文件都不在所选的课里。")

    console.print(f"批改 {len(roster.submissions)} 份练习：每份限时 {limits.timeout:g} 秒，"
                  f"内存上限 {limits.memory_mb} MiB，同时 {jobs} 份。")
    started = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as bar:
        task = bar.add_task("批改中", total=len(roster.submissions))

        def done(sub: Submission, verdict: Verdict):
            bar.update(task, advance=1, description=escape(f"{sub.learner} 第 {sub.lesson.code} 课：{verdict.label}"))

        results = grade(roster, limits, jobs, done)
    wall = time.monotonic() - started

    table = Table(title="成绩表", title_justify="left",
                  caption=f"✓ 通过，✗ 未通过及原因，{MISSING} 没交；每份限时 {limits.timeout:g} 秒", caption_justify="left")
    table.add_column("学习者", overflow="fold")
    for lesson in columns:
        table.add_column(lesson.code, overflow="fold")
    table.add_column("通过", justify="right")
    for name in roster.learners:
        cells = [results.get((name, l.code)) for l in columns]
        table.add_row(escape(name), *map(_cell, cells), str(sum(bool(v and v.passed) for v in cells)))
    rates = pass_rates(roster.learners, columns, results)
    table.add_section()
    table.add_row("通过率", *(f"{k}/{n} {k / n:.0%}" for k, n in rates.values()), "")
    console.print(table)
    counts = kind_counts(results)
    summary = "，".join(f"{VERDICTS[k]} {n}" for k, n in counts.items() if n) or "没有交上来的练习"
    console.print(f"判定统计：{summary}。用时 {wall:.1f} 秒。")

    csv_text = report_csv(roster.learners, columns, results)
    json_text = report_json(Path(class_dir), roster, columns, results, limits, jobs, wall)
    write_reports(csv_path, json_path, csv_text, json_text)
    for path, what in ((csv_path, "CSV（UTF-8 带 BOM，Excel 可直接打开）"), (json_path, "JSON（每个判定的消息与用时）")):
        if path:
            console.print(f"已写出 {what}：{escape(str(path))}")
    return 0
