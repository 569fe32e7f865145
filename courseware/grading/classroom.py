"""批改全班：./poet grade CLASS 用的发现与并行批改（通过率与 CSV/JSON 报告在 gradebook.py，屏幕上的成绩表在 cli/display.py）。

每份练习都交给 courseware.grading.check_file：它在自己的子进程里运行学习者的文件（能用
bwrap 时关在沙箱里，班级文件夹在沙箱里根本不存在；另有时间、内存、输出上限），判定只由批改程序作出。
这里只负责找文件、排队，并保证一个学习者的文件怎样捣乱，全班的成绩都照样批出来：
名字不是 UTF-8 的文件夹写成转义，Ctrl-C 或 SIGTERM 时先结束全部检查进程。

学习者文件在开始批改前就整份读进内存，所以即使在没有沙箱的机器上，一个学习者的程序改写或删除
班级文件夹里别人的文件，也改变不了别人的判定。
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import unicodedata
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from poetry_gpt.common import os_reason

from ..catalogue import BY_NUMBER, CATALOGUE, EXERCISE, Lesson
from ..messages import code_point, safe_text
from .checking import check_file
from .confine import memory_available_mb, sweep_stale
from .course import default_seed, lesson_check, reference
from .limited import cancel_all, interruptible, sweep_stale_scratch
from .submission import SYMLINK, read_at
from .verdict import MIN_MEMORY_MB, Limits, Verdict

SHOWN_PATH = 200
"""消息里的班级文件夹路径最多写这么多字符。"""

# 课号只认 ASCII 数字：\d 也认 𝟎𝟗、٠٩ 这些长得像（int 也照样读成 9）的数字，它们会顶替真的 09.py
_NESTED = re.compile(rf"lessons/([0-9]{{1,2}})/{re.escape(EXERCISE)}")
_FLAT = re.compile(r"([0-9]{1,2})\.py")
HIDDEN = (".", "__")
"""名字这样开头的文件与文件夹（.git、.DS_Store、__pycache__、__MACOSX）不看，只数一数：逐个列出来全是噪音。"""


class ClassroomError(ValueError):
    """班级文件夹或参数有问题；消息是给老师看的中文。"""


def shown_name(name: str, limit: int | None = None) -> str:
    """文件名在报告与终端里的写法：不是 UTF-8 的字节写成 \\xff，控制字符与看不见的字符写成转义，名字里的换行写成 \\n
    （不然它在 CSV、JSON 与终端里另起一行）；不是 NFC 的名字（“José”的 e 后面另跟一个组合用的重音）里每个非 ASCII
    字符都写成 \\u0301 这样的转义，与 NFC 写法的同名人印出来不一样。limit 给出时截到这么多字符。"""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if not unicodedata.is_normalized("NFC", text):
        text = "".join(ch if ch.isascii() else code_point(ch) for ch in text)
    return safe_text(text.replace("\n", "\\n").replace("\r", "\\r"), limit)


def folder_name(name: str) -> str:
    """文件夹名的无歧义写法：先把名字里本来就有的反斜杠写成两个，再照 shown_name 转义。两个不同的文件夹名
    写出来一定不同（真叫“\\xd5\\xc5”的文件夹与名字是 GBK 字节 D5 C5 的文件夹，shown_name 一样，这里不一样）。"""
    return shown_name(name.replace("\\", "\\\\"))


def learner_names(folders: list[str]) -> dict[str, str]:
    """学习者文件夹名 → 成绩表、CSV 与 JSON 里的名字（shown_name）。shown_name 撞名的几个（真叫“a\\xff”的文件夹与名字
    是字节 a FF 的文件夹……）一个也不偏袒：每个都在名字后面写明来自哪个文件夹
    （folder_name），不用“（2）”这种分不清谁是谁的编号。"""
    shown = {name: shown_name(name) for name in folders}
    counts = Counter(shown.values())
    names, taken = {}, set(shown.values())
    for name in folders:
        label = shown[name] if counts[shown[name]] == 1 else f"{shown[name]}（文件夹 {folder_name(name)}）"
        if counts[shown[name]] > 1 and label in taken:  # 另有一个文件夹真叫这个带括号的名字：再加编号
            label = _unique(label, taken)
        taken.add(label)
        names[name] = label
    return names


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 1
    while out in taken:
        n += 1
        out = f"{name}（{n}）"
    return out


@dataclass
class Submission:
    """一个学习者交的一课：rel 是相对班级文件夹的路径；source 是批改前读进内存的内容。"""

    learner: str
    lesson: Lesson
    rel: str
    source: bytes | str  # 批改前读进来的内容；str：读不了的原因（太大、不是普通文件……）


@dataclass
class Roster:
    """在班级文件夹里找到的东西。"""

    learners: list[str] = field(default_factory=list)
    submissions: dict[tuple[str, str], Submission] = field(default_factory=dict)  # (学习者, 课号) → 提交
    ignored: list[str] = field(default_factory=list)  # “路径：原因”
    untouched: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)  # 算作没交的：→ (路径, 原因)
    skipped: int = 0  # 认得出、但不在 --lessons 范围内的文件数
    hidden: int = 0  # 没有看的隐藏文件与文件夹（名字以 HIDDEN 开头）
    found: list[str] = field(default_factory=list)  # 交给 add 的每个文件的路径（含算作没交的、被另一种布局盖掉的）

    def add(self, sub: Submission) -> None:
        """记下一份提交：空文件与原样的起始代码记进 untouched（不盖掉已有的提交），动过的那份盖掉 untouched
        与同一课先找到的提交（后者写进 ignored）。"""
        self.found.append(sub.rel)
        key = (sub.learner, sub.lesson.code)
        why = untouched_reason(sub.lesson, sub.source) if isinstance(sub.source, bytes) else None
        if why:
            if key not in self.submissions:
                self.untouched[key] = (sub.rel, why)
            return
        self.untouched.pop(key, None)
        if key in self.submissions:
            self.ignored.append(f"{sub.learner}/{self.submissions[key].rel}：同一课还有 {sub.rel}，用后者")
        self.submissions[key] = sub

    def layout_counts(self) -> tuple[int, int]:
        """找到的练习文件里 (NN.py 的份数, lessons/NN/my_exercise.py 的份数)：算作没交的、同一课被另一种布局
        盖掉的也算（都是在那种布局里找到的文件）。"""
        nested = sum(rel.startswith("lessons/") for rel in self.found)
        return len(self.found) - nested, nested


def parse_lessons(text: str) -> list[Lesson]:
    """把 "8-10,14" 解析成课表里已写好的课；还没写好的课跳过。

    Raises:
        ClassroomError: 写法不对、课号不在 1–26，或范围里一课可用的都没有。
    """
    numbers: list[int] = []
    for part in text.replace("，", ",").split(","):
        m = re.fullmatch(r"\s*([0-9]{1,2})\s*(?:-\s*([0-9]{1,2})\s*)?", part)
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


EMPTY = "空文件，算作没交"
UNCHANGED = "与起始代码一字不差，算作没交"


def _normalized(source: bytes) -> bytes:
    """比较“是否动过”时不算的差别：BOM、Windows 的换行、行尾与文件末尾的空白。"""
    lines = source.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").split(b"\n")
    return b"\n".join(line.rstrip() for line in lines).strip(b"\n")


def untouched_reason(lesson: Lesson, source: bytes) -> str | None:
    """空文件或原样交回的起始代码不算交了作业（不然“交了的通过率”把它算进分母）：返回原因，动过的返回 None。"""
    mine = _normalized(source)
    if not mine.strip():
        return EMPTY
    if mine == _normalized((lesson.folder / "starter.py").read_bytes()):
        return UNCHANGED
    return None


MAX_ENTRIES = 2000
"""每个学习者文件夹最多看这么多项（各级合计）：放了一百万个文件的文件夹，批改程序花的时间与内存也有上限。"""
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class _Listing:
    """一个学习者文件夹的列表：只经打开的文件夹描述符（O_NOFOLLOW）往下走，从不经过路径或 glob 跟随链接；
    各级合计最多 MAX_ENTRIES 项，超过了就停（cut 为真）。"""

    def __init__(self):
        self.left = MAX_ENTRIES
        self.cut = False

    def entries(self, fd: int) -> list[tuple[str, str]]:
        """fd 这个文件夹里的 (名字, 种类)，按名字排：种类是 "link"、"dir"、"file" 或 "other"。"""
        found = []
        try:
            with os.scandir(fd) as it:
                for entry in it:
                    if self.left <= 0:
                        self.cut = True
                        break
                    self.left -= 1
                    try:
                        kind = (
                            "link"
                            if entry.is_symlink()
                            else "dir"
                            if entry.is_dir(follow_symlinks=False)
                            else "file"
                            if entry.is_file(follow_symlinks=False)
                            else "other"
                        )
                    except OSError:
                        kind = "other"
                    found.append((entry.name, kind))
        except OSError:
            pass
        return sorted(found)


def _open_dir(name: str, parent_fd: int) -> int | None:
    """相对 parent_fd 打开文件夹 name，不跟随链接（列出之后才换成链接的也打不开）；打不开时为 None。"""
    try:
        return os.open(name, _DIR, dir_fd=parent_fd)
    except OSError:
        return None


def find_submissions(class_dir: Path, lessons: list[Lesson]) -> Roster:
    """找出 CLASS/<学习者>/NN.py 与 CLASS/<学习者>/lessons/NN/my_exercise.py 两种布局的练习。

    只看这两个位置（学习者文件夹里的其他东西只列出名字、不往深里翻）。同一个学习者同一课两种都有时，
    用 lessons/NN/my_exercise.py。空文件与原样未改的起始代码算作没交，记进 untouched（不会盖掉另一种布局里
    动过的那份）。文件内容在这里就读进内存。符号链接（文件本身，或路上的文件夹）一律不跟随：只经打开的文件夹描述符
    （O_NOFOLLOW）往下走，链接列进 ignored（“符号链接，不批改”），它指向的文件夹里的名字一个也不列、文件一个字节也不读；
    列出之后才换成链接的也打不开。每个学习者文件夹最多看 MAX_ENTRIES 项（各级合计），多了就停下并写进 ignored。

    Raises:
        ClassroomError: class_dir 不存在或不是文件夹。
    """
    class_dir = Path(class_dir)
    if not class_dir.is_dir():
        what = "不是文件夹" if class_dir.exists() else "不存在"
        raise ClassroomError(
            f"班级文件夹 {shown_name(str(class_dir), SHOWN_PATH)} {what}。用法：./poet grade 班级文件夹，"
            f"里面每个学习者一个文件夹，放 NN.py 或 lessons/NN/{EXERCISE}。"
        )
    wanted = {lesson.number for lesson in lessons}
    roster = Roster()
    try:
        class_fd = os.open(class_dir, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
        try:
            with os.scandir(class_fd) as it:
                folders = sorted((e.name, e.is_symlink(), e.is_dir(follow_symlinks=False)) for e in it)
        except OSError:
            os.close(class_fd)
            raise
    except OSError as e:
        raise ClassroomError(f"读不了班级文件夹 {shown_name(str(class_dir), SHOWN_PATH)}：{os_reason(e)}") from None
    names = learner_names([name for name, _, _ in folders if not name.startswith(HIDDEN)])
    try:
        for name, is_link, is_dir in folders:
            if name.startswith(HIDDEN):
                roster.hidden += 1
                continue
            learner = names[name]
            if is_link:
                roster.ignored.append(f"{learner}：{SYMLINK}")
                continue
            if not is_dir:
                roster.ignored.append(f"{learner}：不是学习者文件夹")
                continue
            try:
                fd = os.open(name, _DIR, dir_fd=class_fd)
            except OSError as e:  # 列出之后才换成了链接（ELOOP），或读不了
                why = SYMLINK if os.path.islink(class_dir / name) else f"读不了（{os_reason(e)}）"
                roster.ignored.append(f"{learner}：{why}" if why == SYMLINK else f"{learner}/：{why}")
                continue
            try:
                found = _learner_files(fd, learner, wanted, roster)
            finally:
                os.close(fd)
            # 没有认得出的文件的人照样在名单上（每课都是“缺”，算进全班通过率）：文件名写错了的人不该从成绩表上消失
            roster.learners.append(learner)
            if not found:
                roster.ignored.append(f"{learner}/：里面没有认得出的练习文件")
    finally:
        os.close(class_fd)
    return roster


def _learner_files(fd: int, learner: str, wanted: set[int], roster: Roster) -> int:
    """把学习者文件夹（已打开的 fd）里两种布局的练习记进 roster，别的东西逐项写进 ignored（写明原因；名字以 HIDDEN
    开头的只数一数），返回认得出的练习文件数（课号在课表里、已写好，不管在不在 wanted 里）。

    次序与以前相同：先平铺的 NN.py、再嵌套的 lessons/NN/my_exercise.py（两种都有的课，嵌套的覆盖平铺的），
    然后是不看的东西，最后（列到了上限时）说明没有看完。"""
    listing = _Listing()
    flat, nested, others = [], [], []

    def other(rel: str, kind: str) -> None:
        slash = "/" if kind == "dir" else ""
        why = SYMLINK if kind == "link" else f"不是 NN.py 或 lessons/NN/{EXERCISE}"
        others.append(f"{learner}/{shown_name(rel)}{slash}：{why}")

    for name, kind in listing.entries(fd):
        if name.endswith(".py"):
            flat.append(_candidate(fd, name, kind, name, wanted))
        elif name.startswith(HIDDEN):
            roster.hidden += 1
        elif name == "lessons" and kind == "dir" and (lessons_fd := _open_dir(name, fd)) is not None:
            try:
                for code, code_kind in listing.entries(lessons_fd):
                    if code.startswith(HIDDEN):
                        roster.hidden += 1
                    elif code_kind == "dir" and (code_fd := _open_dir(code, lessons_fd)) is not None:
                        try:
                            inside = listing.entries(code_fd)
                            if not inside:
                                others.append(f"{learner}/{shown_name(f'lessons/{code}')}/：空文件夹")
                            for item, item_kind in inside:
                                rel = f"lessons/{code}/{item}"
                                if item == EXERCISE:
                                    nested.append(_candidate(code_fd, item, item_kind, rel, wanted))
                                elif item.startswith(HIDDEN):
                                    roster.hidden += 1
                                else:
                                    other(rel, item_kind)
                        finally:
                            os.close(code_fd)
                    else:
                        other(f"lessons/{code}", code_kind)
            finally:
                os.close(lessons_fd)
        else:
            other(name, kind)
    recognized = 0
    for outcome in flat + nested:
        rel, what = outcome[0], outcome[1]
        if what == "ignored":
            roster.ignored.append(f"{learner}/{rel}：{outcome[2]}")
            continue
        recognized += 1
        if what == "skipped":
            roster.skipped += 1
        elif outcome[3] == SYMLINK:
            roster.ignored.append(f"{learner}/{rel}：{SYMLINK}")
        else:
            roster.add(Submission(learner, outcome[2], rel, outcome[3]))
    roster.ignored += others
    if listing.cut:
        roster.ignored.append(f"{learner}/：文件太多，只看了前 {MAX_ENTRIES} 项，其余的没有看")
    return recognized


def _candidate(dir_fd: int, name: str, kind: str, rel: str, wanted: set[int]) -> tuple:
    """看一个候选文件（dir_fd 里的 name，相对学习者文件夹是 rel）：(显示的 rel, "ignored", 原因)、
    (显示的 rel, "skipped")（认得出、不在 --lessons 里），或 (显示的 rel, "take", 课, 读进来的内容或原因)。"""
    rel = shown_name(rel)
    m = _FLAT.fullmatch(rel) or _NESTED.fullmatch(rel)
    if m and kind == "link":  # 不跟随：链接可能指向参考答案或老师的文件
        return rel, "ignored", SYMLINK
    if not m or kind != "file":
        return rel, "ignored", f"不是 NN.py 或 lessons/NN/{EXERCISE}"
    lesson = BY_NUMBER.get(int(m.group(1)))
    if lesson is None or not lesson.available:
        return rel, "ignored", f"第 {int(m.group(1)):02d} 课不在课表里或还没写好"
    if lesson.number not in wanted:
        return rel, "skipped"
    return rel, "take", lesson, read_at(dir_fd, name)  # O_NOFOLLOW：列出之后才换成的链接也不跟随


def grade_one(sub: Submission, limits: Limits, seed: int | None = None) -> Verdict:
    """检查一份提交（用批改前读进来的内容），随机用例由 seed 生成（None：每课固定的种子）。
    批改程序自己出了错也只是这一格的“批改出错”。"""
    if isinstance(sub.source, str):
        return Verdict("syntax", sub.source)
    try:
        return check_file(sub.lesson, Path(sub.rel), limits, seed=seed, source=sub.source, shown=sub.rel)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # 不该发生；发生了也不能让别人的成绩出不来，更不能算学习者的错
        return Verdict("error", safe_text(f"批改程序出错（不是学习者的错，请报告）：{type(e).__name__}: {e}", 2000))


def grade(
    roster: Roster, limits: Limits, jobs: int, on_done=None, seed: int | None = None, log: TextIO | None = None
) -> dict[tuple[str, str], Verdict]:
    """并行批改 roster 里的每份提交，随机用例都由 seed 生成（None：与 ./poet check 相同的每课固定种子）。

    ./poet grade 每次给一个新的随机 seed：学习者反复 ./poet check、把报出的“应为”抄成一张表，
    也只对得上 check 的固定用例，批改时的用例对不上。

    工作都在子进程里，所以用 jobs 个线程各自等一个 check_file 就够了。on_done(submission, verdict)
    在每份批改完时（主线程里）被调用，用来推进度条。

    开始之前先清掉以前被杀掉的批改留下的临时工作文件夹与 cgroup（里面剩下的检查进程一并结束）。
    log 给出时，每份批改完就往这个打开的文件（gradebook.open_partial）追加一行 JSON（学习者、课号、判定、消息、用时）：
    批改程序被杀掉时，已经批完的都留在里面；正常写完报告后由 gradebook.write_reports 删掉它。

    Returns:
        (学习者, 课号) → Verdict；没交的课不在里面。
    """
    sweep_stale()
    sweep_stale_scratch()
    for lesson in sorted({sub.lesson for sub in roster.submissions.values()}, key=lambda l: l.number):
        # 在运行任何学习者代码之前载入 check.py、算好参考输出：之后谁改了课程文件也影响不到比较
        with contextlib.suppress(Exception):  # 课程自身出错时，check_file 会在每个判定里说明
            lesson_check(lesson)
            reference(lesson, default_seed(lesson) if seed is None else seed)
    results: dict[tuple[str, str], Verdict] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    # Ctrl-C 或 SIGTERM：interruptible 杀掉全部检查进程；这里等各线程删掉自己的临时文件夹再退出
    with interruptible():
        try:
            futures = {pool.submit(grade_one, sub, limits, seed): key for key, sub in roster.submissions.items()}
            pending = set(futures)
            while pending:
                # 隔一会儿就醒一次：Ctrl-C 若落在某个批改线程上，主线程要醒来才处理得到它（一直等着会等到一份批改完）
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    key = futures[future]
                    results[key] = future.result()
                    if log is not None:
                        _log_verdict(log, roster.submissions[key], results[key])
                    if on_done:
                        on_done(roster.submissions[key], results[key])
        except KeyboardInterrupt:
            cancel_all()  # 先结束检查进程，下面等线程收尾时才不必等到各自的时间上限
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return results


def _log_verdict(log, sub: Submission, verdict: Verdict) -> None:
    record = {
        "learner": sub.learner,
        "lesson": sub.lesson.code,
        "file": sub.rel,
        "kind": verdict.kind,
        "label": verdict.label,
        "message": verdict.message,
        "seconds": verdict.seconds,
        "cpu_seconds": verdict.cpu_seconds,
    }
    with contextlib.suppress(OSError):
        log.write(json.dumps(record, ensure_ascii=False) + "\n")


def lessons_in(roster: Roster, lessons: list[Lesson]) -> list[Lesson]:
    """班里至少有一人交了的课（按课号排）。"""
    codes = {code for _, code in roster.submissions}
    return [l for l in lessons if l.code in codes]


def lessons_to_grade(lessons_text: str | None, limits: Limits, jobs: int) -> list[Lesson]:
    """./poet grade 开始前：检查限制与 --lessons，返回要批改的课（不写 --lessons 时是全部已写好的课）。

    Raises:
        ClassroomError: --timeout、--jobs、--memory 不对（内存低于检查进程导入 torch、跑完参考答案的需要），
            或 --lessons 是空的、写法不对。
    """
    if not limits.timeout > 0 or jobs < 1:
        raise ClassroomError("--timeout 要大于 0 秒，--jobs 至少为 1。")
    if limits.memory_mb < MIN_MEMORY_MB:
        raise ClassroomError(
            f"--memory {limits.memory_mb} MiB 太低：检查进程至少要 {MIN_MEMORY_MB} MiB 才能导入 torch、"
            f"跑完参考答案。低于这个数，诚实的练习也会因内存不够而失败。"
        )
    if lessons_text is not None and not lessons_text.strip():
        raise ClassroomError("--lessons 是空的。请写成 8-10,14 这样；不写这个选项就批改全部课。")
    return parse_lessons(lessons_text) if lessons_text else [l for l in CATALOGUE if l.available]


GRADER_RESERVE_MB = 512
"""批改程序自己（torch、参考输出、报告）留出的内存：--jobs × --memory 加上它要放得进这台机器还能用的内存。"""


def fit_jobs(jobs: int, memory_mb: int) -> tuple[int, str | None]:
    """按这台机器（容器）真能用的内存（confine.memory_available_mb）定同时批改几份：(份数, 给老师看的一句或 None)。
    同时 jobs 份、每份最多 memory_mb 时可能超出，就减少份数并说明；读不到可用内存时照旧。

    Raises:
        ClassroomError: 一份检查加上批改程序自己都放不下。
    """
    found = memory_available_mb()
    if found is None:
        return jobs, None
    available, source = found
    fit = (available - GRADER_RESERVE_MB) // memory_mb
    if fit < 1:
        raise ClassroomError(
            f"这台机器现在能用的内存只有约 {available} MiB（{source}）：一份 --memory {memory_mb} MiB 的检查加上批改程序"
            f"自己的约 {GRADER_RESERVE_MB} MiB 都放不下，内存一紧，内核会连批改程序一起杀掉。请调小 --memory，或换一台机器。"
        )
    if fit >= jobs:
        return jobs, None
    return fit, (
        f"注意：这台机器现在能用的内存约 {available} MiB（{source}），放不下同时 {jobs} 份、每份 {memory_mb} MiB 的检查"
        f"（还要给批改程序自己留约 {GRADER_RESERVE_MB} MiB）：同时只批改 {fit} 份。"
    )


def columns_of(roster: Roster, lessons: list[Lesson], lessons_text: str | None, class_dir: str) -> list[Lesson]:
    """成绩表的列：写了 --lessons 时是这些课，否则是班里有人交了的课。

    Raises:
        ClassroomError: 班级文件夹里没有一份认得出的练习（文件夹都是空的、放错了地方），或找到的文件都不在所选的课里。
    """
    if not roster.found and not roster.skipped:
        raise ClassroomError(
            f"{shown_name(class_dir, SHOWN_PATH)} 里没有找到学习者：每个学习者一个文件夹，"
            f"放 NN.py 或 lessons/NN/{EXERCISE}。"
        )
    columns = lessons if lessons_text else lessons_in(roster, lessons)
    if not columns:
        raise ClassroomError("没有要批改的练习：找到的文件都不在所选的课里。")
    return columns
