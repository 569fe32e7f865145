"""./poet grade 的成绩：通过率、判定的份数与 CSV/JSON 报告（屏幕上的成绩表在 cli/display.py）。

CSV 里像公式的格子加 ' 前缀；报告批改开始之前就确认写得进去、不会盖掉学习者的作业，写时原子地替换。
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import stat
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from poetry_gpt.common import atomic_write_bytes, atomic_write_text, os_reason

from ..catalogue import Lesson
from ..messages import safe_text
from .classroom import ClassroomError, Roster, shown_name
from .sandbox import Machine
from .verdict import VERDICTS, Limits, Verdict

MISSING = "缺"
"""某个学习者没有交某一课时，成绩表与报告里写的标签。"""
NOT_GRADED = "未批改"
"""交了、但批改被中断（Ctrl-C）时还没批改的一份：部分报告里写的标签。"""
NOT_GRADED_REASON = "批改被中断，没有批改"


def label(verdict: Verdict | None, pending: bool = False) -> str:
    return (NOT_GRADED if pending else MISSING) if verdict is None else verdict.label


NO_FILE = "没有交这一课"
"""没有这一课的练习文件（两种布局都没有）时的原因；空文件与原样的起始代码另有原因（classroom.EMPTY、UNCHANGED）。"""


def reason(verdict: Verdict | None, missing: str = NO_FILE) -> str:
    """没通过的判定的原因：消息的第一行（转义、截短到 200 个字符，CSV 与 --details 用）；通过时为空，没交时是 missing
    （空文件、原样的起始代码或 NO_FILE）。第一行只是个引子（“可见检查没通过：”，下面是栈帧）时接上最后一行——报错本身。
    崩溃的消息前面常有一句给学习者的中文建议：跳过它，从“导入出错：”“第 3 个用例出错：”这样的引子起，
    老师看到的是出错的地方与报错（ModuleNotFoundError: No module named 'solution'）。"""
    if verdict is None:
        return missing
    if verdict.passed:
        return ""
    lines = [line.strip() for line in verdict.message.splitlines() if line.strip()]
    lead = ("：", ":")
    if verdict.kind == "crashed" and lines and not lines[0].endswith(lead):
        lines = lines[next((i for i, line in enumerate(lines) if line.endswith(lead)), 0) :]
    first = lines[0] if lines else ""
    if first.endswith(lead) and len(lines) > 1:
        first += lines[-1]
    return safe_text(first, 200, one_line=True)


FORMULA_STARTS = ("=", "+", "-", "@", "＝", "＋", "－", "＠")
"""格子里的文字（去掉开头的空白之后）以这些开头时，Excel 与 LibreOffice 会把它当作公式：全角的也算。"""


def csv_cell(value) -> str:
    """CSV 的一格。以 FORMULA_STARTS 开头（前面有空白也算，“ =1+1”照样是公式）、或以制表符、回车开头的文字在 Excel 里
    会被当作公式，前面加 ' 让它只是文字。"""
    text = str(value)
    return "'" + text if text.lstrip()[:1] in FORMULA_STARTS or text[:1] in ("\t", "\r") else text


def rate_text(passed: int, n: int) -> str:
    """通过率的写法：“3/4 75%”；分母是 0 时只写“0/0”。"""
    return f"{passed}/{n} {passed / n:.0%}" if n else f"{passed}/{n}"


RATE_ROWS = ("交了的通过率", "全班通过率")
"""成绩表与 CSV 末尾的两行：只算交了这一课的人；把没交的（含空文件、原样的起始代码）算作没通过。"""


def report_csv(
    learners: list[str],
    lessons: list[Lesson],
    results: dict,
    seed: int | None = None,
    graded_at: str = "",
    pending: Collection = (),
    untouched: dict | None = None,
) -> str:
    """一行一个学习者；每课两列：判定标签（列名带课名）与原因（没通过时消息的第一行；没交时说是空文件、原样的起始代码
    还是没有文件），最后一列是通过的课数；接着两行是每课的两种通过率（RATE_ROWS）；空一行之后是随机用例的种子与批改时间。
    pending：交了却还没批改的 (学习者, 课号)（批改被中断）：写作“未批改”，末尾再加一行说明这是部分报告。
    untouched：classroom.Roster.untouched，算作没交的 (学习者, 课号) → (路径, 原因)。"""
    untouched = untouched or {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    head = [h for l in lessons for h in (f"第{l.code}课 {l.title}", f"第{l.code}课原因")]
    writer.writerow(["学习者", *head, "通过数"])
    for name in learners:
        row, passed = [], 0
        for l in lessons:
            v, later = results.get((name, l.code)), (name, l.code) in pending
            why = NOT_GRADED_REASON if later else reason(v, untouched.get((name, l.code), ("", NO_FILE))[1])
            row += [csv_cell(label(v, later)), csv_cell(why)]
            passed += bool(v and v.passed)
        writer.writerow([csv_cell(name), *row, passed])
    rates = pass_rates(learners, lessons, results).values()
    writer.writerow([RATE_ROWS[0], *(x for k, s, _ in rates for x in (rate_text(k, s), "")), ""])
    writer.writerow([RATE_ROWS[1], *(x for k, _, n in rates for x in (rate_text(k, n), "")), ""])
    writer.writerow([])
    writer.writerow(["随机用例的种子", "" if seed is None else seed])
    writer.writerow(["批改时间", graded_at])
    if pending:
        writer.writerow([PARTIAL, f"批改被中断：{len(results)} 份已批改，{len(pending)} 份写作“{NOT_GRADED}”"])
    return out.getvalue()


PARTIAL = "部分报告"
"""批改被中断（Ctrl-C）时写出的报告：CSV 末尾一行以它开头，JSON 里 "partial": true。"""


def report_json(
    class_dir: Path,
    roster: Roster,
    lessons: list[Lesson],
    results: dict,
    limits: Limits,
    machine: Machine,
    jobs: int,
    wall_seconds: float,
    seed: int | None = None,
    graded_at: str = "",
    pending: Collection = (),
) -> str:
    """全部判定（含消息与用时）、限制设置、这次批改用上的隔离（machine：批改开始时探到的，这里不再探）、
    随机用例的种子、批改时间与课程列表。pending 不空（批改被中断）时 "partial" 为 true，还没批改的写作 kind "not_graded"。"""
    cells = []
    for name in roster.learners:
        for lesson in lessons:
            sub = roster.submissions.get((name, lesson.code))
            v = results.get((name, lesson.code))
            rel, why = roster.untouched.get((name, lesson.code), (None, NO_FILE))
            cells.append(
                {
                    "learner": name,
                    "lesson": lesson.code,
                    "file": sub.rel if sub else rel,
                    "kind": v.kind if v else "not_graded" if (name, lesson.code) in pending else "missing",
                    "label": label(v, (name, lesson.code) in pending),
                    "message": v.message if v else NOT_GRADED_REASON if (name, lesson.code) in pending else why,
                    "seconds": v.seconds if v else 0.0,
                    "cpu_seconds": v.cpu_seconds if v else 0.0,
                }
            )
    data = {
        "class": shown_name(str(Path(class_dir).resolve())),
        "sandbox": machine.sandboxed,
        "learner_uid": machine.learner_uid,
        "confinement": machine.confinement,  # "cgroup v2"、"cgroup v1" 或 "none"（只有每个进程各自的上限）
        "timeout_is": "cpu_seconds",
        "timeout_seconds": limits.timeout,
        "memory_mb": limits.memory_mb,
        "jobs": jobs,
        "seed": seed,
        "graded_at": graded_at,
        "partial": bool(pending),
        "wall_seconds": round(wall_seconds, 2),
        "lessons": [{"lesson": l.code, "title": l.title} for l in lessons],
        "learners": roster.learners,
        "ignored": roster.ignored,
        "hidden": roster.hidden,
        "verdicts": cells,
    }
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def check_report_paths(class_dir: Path, csv_path: str | None, json_path: str | None) -> None:
    """批改开始之前就确认报告写得进去、也不会盖掉别的文件：--csv 以 .csv 结尾、--json 以 .json 结尾
    （给错了参数也不会把一份练习当成报告覆盖掉），两者不是同一个文件，都不在班级文件夹里（那是学习者的作业），
    不是文件夹，所在的文件夹已经在、里面真建得了文件（试建一个临时文件）——不替人建文件夹：路径打错了
    （/nonexistent/dir/x.csv）就该说出来，而不是以 root 在任何地方建出一串文件夹。同名的旧报告会被替换。

    Raises:
        ClassroomError: 不合上面任何一条（消息写明路径与原因）。
    """
    wanted = ((csv_path, ".csv", "成绩.csv"), (json_path, ".json", "成绩.json"))
    if csv_path and json_path and Path(csv_path).resolve() == Path(json_path).resolve():
        raise ClassroomError(f"--csv 与 --json 是同一个文件 {csv_path}：后写的会盖掉先写的，请各给一个文件名")
    for path, suffix, example in wanted:
        if not path:
            continue
        target = Path(path)
        if target.is_dir():
            raise ClassroomError(f"报告 {path} 是一个文件夹；请给一个文件名，如 {target / example}")
        if target.suffix.lower() != suffix:
            raise ClassroomError(f"报告 {path} 要以 {suffix} 结尾（免得把别的文件当成报告盖掉），如 {example}")
        if target.resolve().is_relative_to(class_dir.resolve()):
            raise ClassroomError(
                f"报告 {path} 在班级文件夹 {class_dir} 里面：那里是学习者的作业，请写到别处，如 ./{example}"
            )
        parent = target.parent
        if not parent.exists():
            raise ClassroomError(f"写不了报告 {path}：文件夹 {parent} 不存在（先建好它，或换一个地方）")
        if not parent.is_dir():
            raise ClassroomError(f"写不了报告 {path}：{parent} 不是文件夹")
        try:  # 真建一个临时文件试：os.access 靠不住（以 root 运行时总说可写，/proc、/sys 里却建不了文件）
            with tempfile.TemporaryFile(dir=parent):
                pass
        except OSError as e:
            raise ClassroomError(f"写不了报告 {path}：在 {parent} 里建不了文件（{os_reason(e)}）") from None


PARTIAL_TRIES = 100
"""边批边写的记录最多试这么多个名字（<报告>.partial.jsonl、<报告>.partial-2.jsonl……）：前面的都被以前被杀掉的批改占着。"""
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def reports_locked(csv_path: str | None, json_path: str | None):
    """批改期间占着每个报告路径（<报告>.lock 上的 flock）：同一份报告同时只有一个 ./poet grade 在写，第二个不等待，
    说明是谁占着之后以非零退出（两次批改写同一份报告，先写完的会被后写完的盖掉，边批边写的记录也会混在一起）。
    锁文件相对报告所在的文件夹打开，不跟随符号链接、只接受普通文件；批改结束（含 Ctrl-C）时删掉。
    被杀掉的批改留下的锁文件不碍事：flock 随进程消失。

    Raises:
        ClassroomError: 锁被另一个批改占着，或锁文件打不开（是符号链接、不是普通文件……）。
    """
    held: list[tuple[int, str, int]] = []
    try:
        for path in filter(None, (csv_path, json_path)):
            held.append(_lock(Path(path)))
        yield
    finally:
        for dir_fd, name, fd in reversed(held):
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=dir_fd)  # 先删再放锁：等着的人拿到的锁不会是已经删掉的那个文件上的
            os.close(fd)
            os.close(dir_fd)


def _lock(report: Path) -> tuple[int, str, int]:
    """占住 report 的锁：(报告所在文件夹的描述符, 锁文件名, 锁文件的描述符)。"""
    name = f"{report.name}.lock"
    try:
        dir_fd = os.open(report.parent, _OPEN_DIR)
    except OSError as e:
        raise ClassroomError(f"写不了报告 {report}：{os_reason(e)}") from None
    while True:
        try:
            fd = os.open(
                name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644, dir_fd=dir_fd
            )
        except OSError as e:
            os.close(dir_fd)
            raise ClassroomError(
                f"锁不了报告 {report}：{report}.lock 打不开（{os_reason(e)}；符号链接不跟随）"
            ) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ClassroomError(f"锁不了报告 {report}：{report}.lock 不是普通文件，请删掉它")
            import fcntl  # 只有 Unix 有：在用到时才导入，Windows 上别的命令照样能导入这个模块

            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ClassroomError(
                    f"另一个 ./poet grade 正在写同一份报告 {report}（它占着 {report}.lock）：等它批完再来，"
                    f"或者给这次批改另取一个报告文件名——两次批改写同一份报告，先写完的会被后写完的盖掉"
                ) from None
            if _same_file(fd, name, dir_fd):
                return dir_fd, name, fd
        except BaseException:
            os.close(fd)
            os.close(dir_fd)
            raise
        os.close(fd)  # 前一个占着锁的批改刚结束、删掉了这个文件：拿新建的那个再来一次


def _same_file(fd: int, name: str, dir_fd: int) -> bool:
    try:
        here = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    there = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


@dataclass
class PartialLog:
    """边批边写的记录（classroom.grade 的 log）：file 是打开的文件，path 是它的路径；earlier 是以前被杀掉的
    批改留下的记录，原样留着（要说给老师听）。没要报告、或一个名字都建不了时 file 与 path 为 None。"""

    file: TextIO | None = None
    path: Path | None = None
    earlier: list[Path] = field(default_factory=list)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def open_partial(csv_path: str | None, json_path: str | None) -> PartialLog:
    """在报告（有 --json 时是它，否则是 --csv）旁边新建边批边写的记录 <报告>.partial.jsonl：相对报告所在的文件夹、
    以 O_EXCL 新建（已有的名字——以前被杀掉的批改留下的记录，或别人放的符号链接——一律不打开、不截断），
    被占着就试 <报告>.partial-2.jsonl、-3……（最多 PARTIAL_TRIES 个）。调用前先要 reports_locked：
    占着锁时，已有的记录不会是正在进行的批改的。"""
    base = json_path or csv_path
    if not base:
        return PartialLog()
    report = Path(base)
    found = PartialLog()
    try:
        dir_fd = os.open(report.parent, _OPEN_DIR)
    except OSError:
        return found
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        for n in range(1, PARTIAL_TRIES + 1):
            name = f"{report.name}.partial{'' if n == 1 else f'-{n}'}.jsonl"
            try:
                fd = os.open(name, flags, 0o644, dir_fd=dir_fd)
            except FileExistsError:
                found.earlier.append(report.with_name(name))
                continue
            except OSError:
                break
            found.file = os.fdopen(fd, "w", encoding="utf-8", buffering=1)  # 行缓冲：每份批完就落到文件里
            found.path = report.with_name(name)
            break
    finally:
        os.close(dir_fd)
    return found


def write_reports(
    csv_path: str | None, json_path: str | None, csv_text: str, json_text: str, partial: Path | None = None
) -> None:
    """原子地写出（或替换）报告，写完删掉这次批改边批边写的记录 partial（open_partial 建的；以前的批改留下的不动）。
    CSV 用带 BOM 的 UTF-8（utf-8-sig），中文 Windows 上的 Excel 双击就能正确打开。

    Raises:
        ClassroomError: 写不进去（消息写明路径与原因）。
    """
    for path, write in (
        (csv_path, lambda p: atomic_write_bytes(p, csv_text.encode("utf-8-sig"))),
        (json_path, lambda p: atomic_write_text(p, json_text)),
    ):
        if path:
            try:
                write(path)
            except OSError as e:
                raise ClassroomError(f"写不了报告 {path}：{os_reason(e)}") from None
    if partial is not None:
        partial.unlink(missing_ok=True)


def pass_rates(learners: list[str], lessons: list[Lesson], results: dict) -> dict[str, tuple[int, int, int]]:
    """课号 → (通过人数, 交了的人数, 全班人数)：通过率可以只算交了的人，也可以把没交的算作没通过。"""
    return {
        l.code: (
            sum(bool((v := results.get((n, l.code))) and v.passed) for n in learners),
            sum((n, l.code) in results for n in learners),
            len(learners),
        )
        for l in lessons
    }


def kind_counts(results: dict) -> dict[str, int]:
    """判定标签 → 份数（只列出现过的，按 grading.VERDICTS 的顺序）。"""
    counts = {kind: 0 for kind in VERDICTS}
    for v in results.values():
        counts[v.kind] += 1
    return {VERDICTS[kind]: n for kind, n in counts.items() if n}
