"""./poet grade 的成绩：通过率、判定的份数与 CSV/JSON 报告（屏幕上的成绩表在 cli/display.py）。

CSV 里像公式的格子加 ' 前缀；报告批改开始之前就确认写得进去、不会盖掉学习者的作业，写时原子地替换。
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Collection
from pathlib import Path

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


def csv_cell(value) -> str:
    """CSV 的一格。以 = + - @（或制表符、回车）开头的文字在 Excel 里会被当作公式，前面加 ' 让它只是文字。"""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


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


def partial_path(csv_path: str | None, json_path: str | None) -> Path | None:
    """边批边写的记录（classroom.grade 的 partial）放在哪里：报告旁边的 <报告>.partial.jsonl；没要报告时为 None。"""
    base = json_path or csv_path
    return Path(f"{base}.partial.jsonl") if base else None


def write_reports(csv_path: str | None, json_path: str | None, csv_text: str, json_text: str) -> None:
    """原子地写出（或替换）报告，写完删掉边批边写的记录（partial_path）。CSV 用带 BOM 的 UTF-8（utf-8-sig），
    中文 Windows 上的 Excel 双击就能正确打开。

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
    if (partial := partial_path(csv_path, json_path)) is not None:
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
