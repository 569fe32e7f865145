"""课程目录、课号解析与学习进度。

课表本身是数据文件 lessons/manifest.toml（全课唯一的一份）；CLI、自检、测试和网站都经由这里读它，
别处不再另存课程列表，也不写死课数。
"""
from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..common import ROOT, DataFileError, atomic_write_text, os_reason, read_toml

LESSONS_DIR = ROOT / "lessons"
WORKSPACE = Path(os.environ.get("POET_WORKSPACE") or ROOT)
"""学习者自己的文件（练习、进度）放在哪里；默认就是仓库，测试时指向临时目录。"""
PROGRESS_FILE = WORKSPACE / ".progress.json"
EXERCISE = "my_exercise.py"

MANIFEST = LESSONS_DIR / "manifest.toml"
MANIFEST_FORMAT = 1
"""manifest.toml 的格式版本；改了字段的含义就加一，这里同时改读法。"""
LESSON_FIELDS = ("number", "section", "title", "goal", "exercise", "hint")
OPTIONAL_FIELDS = ("more",)
"""more：完整的做法，./poet hint N --more 才显示；hint 只是第一步的点拨（看哪里、想什么）。"""


class ManifestError(ValueError):
    """lessons/manifest.toml 缺失或写错；消息是中文。"""


@dataclass(frozen=True)
class Lesson:
    """课表里的一课（lessons/manifest.toml 的一个 [[lesson]]）。"""

    number: int
    section: str  # SECTIONS 的键
    title: str
    goal: str
    exercise: str
    hint: str
    more: str = ""

    @property
    def code(self) -> str:
        """两位课号，如 "09"。"""
        return f"{self.number:02d}"

    @property
    def folder(self) -> Path:
        return LESSONS_DIR / self.code

    @property
    def exercise_file(self) -> Path:
        """学习者的练习文件 lessons/NN/my_exercise.py（在 WORKSPACE 下）。"""
        return WORKSPACE / "lessons" / self.code / EXERCISE

    @property
    def available(self) -> bool:
        """课程文件夹已写好（五个文件都在）。"""
        return all((self.folder / f).is_file() for f in LESSON_FILES)

    @property
    def section_title(self) -> str:
        return f"{self.section} {SECTIONS[self.section]}"


def load_manifest(path: Path = MANIFEST) -> tuple[dict[str, str], list[Lesson]]:
    """读课表：返回 (SECTIONS 节号 → 节名, 按课号排好的 Lesson 列表)。

    Raises:
        ManifestError: 文件读不了、不是 TOML、格式版本不对、缺字段，
            或课号不是从 1 起连续、节号不在 [[section]] 里。
    """
    try:
        data = read_toml(path)
    except DataFileError as e:
        raise ManifestError(f"课表读不了：{e}") from None
    if data.get("format") != MANIFEST_FORMAT:
        raise ManifestError(f"课表 {path} 的 format 是 {data.get('format')!r}，这个版本的课程只认 {MANIFEST_FORMAT}。")
    sections = {}
    for row in data.get("section", []):
        if not isinstance(row.get("code"), str) or not isinstance(row.get("title"), str):
            raise ManifestError(f"课表 {path} 里有一节缺少 code 或 title：{row}")
        sections[row["code"]] = row["title"]
    lessons = []
    for i, row in enumerate(data.get("lesson", []), start=1):
        wrong = [k for k in LESSON_FIELDS if not isinstance(row.get(k), int if k == "number" else str)]
        wrong += [k for k in OPTIONAL_FIELDS if k in row and not isinstance(row[k], str)]
        extra = sorted(set(row) - set(LESSON_FIELDS) - set(OPTIONAL_FIELDS))
        if wrong or extra:
            raise ManifestError(f"课表 {path} 第 {i} 个 [[lesson]]：缺少或写错 {wrong}，多出 {extra}。")
        if row["number"] != i:
            raise ManifestError(f"课表 {path} 第 {i} 个 [[lesson]] 的 number 是 {row['number']}：课号要从 1 起按顺序连续。")
        if row["section"] not in sections:
            raise ManifestError(f"课表 {path} 第 {i} 课的 section {row['section']!r} 不在 [[section]] 里。")
        lessons.append(Lesson(**{k: row[k].strip() if isinstance(row[k], str) else row[k]
                                  for k in LESSON_FIELDS + OPTIONAL_FIELDS if k in row}))
    if not lessons:
        raise ManifestError(f"课表 {path} 里一课也没有。")
    return sections, lessons


LESSON_FILES = ("README.md", "experiment.py", "starter.py", "solution.py", "check.py")

SECTIONS, CATALOGUE = load_manifest()
BY_NUMBER = {lesson.number: lesson for lesson in CATALOGUE}


class LessonNumberError(ValueError):
    """课号写错了；消息是给学习者看的中文。"""


def parse_lesson(text: str, require_available: bool = True) -> Lesson:
    """把 "9"、"09"、"lesson-09" 解析成课表里的一课。

    Raises:
        LessonNumberError: 不是 1–26 之间的课号，或（require_available 时）这课还没写好。
    """
    m = re.fullmatch(r"(?:lesson[-_]?)?0*(\d{1,2})", str(text).strip(), flags=re.IGNORECASE)
    number = int(m.group(1)) if m else None
    if number not in BY_NUMBER:
        raise LessonNumberError(f"“{text}”不是有效的课号：请写 1 到 {len(CATALOGUE)} 之间的数，"
                                f"例如 9、09 或 lesson-09。")
    lesson = BY_NUMBER[number]
    if require_available and not lesson.available:
        ready = "、".join(l.code for l in CATALOGUE if l.available) or "暂无"
        raise LessonNumberError(f"第 {lesson.code} 课《{lesson.title}》即将推出，还不能使用。"
                                f"现在可以学的课：{ready}。")
    return lesson


# 进度：not started（无记录）/ started / passed。写入时先写临时文件再改名。
STATUS_LABEL = {"passed": "已通过", "started": "已开始", None: "未开始"}
_STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
_VERDICT = re.compile(r"[^\x00-\x1f\x7f-\x9f]{1,20}")
"""last_verdict 是批改的判定标签（“答案错误”这样的几个字）：不收控制字符，也不会很长。"""


class ProgressError(ValueError):
    """进度文件的位置上是文件夹，或读不了；消息是给学习者看的中文。"""


def _fits(entry) -> bool:
    """一课的进度记录合不合格式：{"status": "passed" 或 "started", 可选 "updated": 时间, 可选 "last_verdict": 标签}。"""
    fields = {"status": None, "updated": _STAMP, "last_verdict": _VERDICT}
    return (isinstance(entry, dict) and entry.get("status") in ("passed", "started")
            and all(key in fields and (fields[key] is None or isinstance(value, str) and fields[key].fullmatch(value))
                    for key, value in entry.items()))


def backup_path(name_for) -> Path:
    """备份用的、还不存在的路径 name_for(时间)：时间写成 20250102-030405；同一秒里这个名字已经有了，
    就依次试 20250102-030405-2、-3……，从不盖掉上一个备份。"""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = name_for(stamp), 1
    while path.exists():
        n += 1
        path = name_for(f"{stamp}-{n}")
    return path


def _set_aside(path: Path, kept: dict) -> str:
    """把看不懂的进度文件原样改名另存为 .progress.json.broken-时间（同一秒里再来一次也不盖掉上一个），
    再把还能用的记录 kept 原子地写回 path（空的就不写）。返回给警告用的半句话。"""
    backup = backup_path(lambda stamp: path.with_name(f"{path.name}.broken-{stamp}"))
    try:
        os.replace(path, backup)
        if kept:
            atomic_write_text(path, _progress_json(kept))
    except OSError as e:  # 只读的文件夹：这次照样用还能用的记录，原文件不动
        return f"原文件没能另存（{os_reason(e)}），保持原样"
    return f"原文件已另存为 {backup.name}"


def load_progress(path: Path | None = None) -> dict:
    """读进度文件（默认 PROGRESS_FILE）；没有时是空进度。返回 课号 → {"status", "updated", "last_verdict"}。

    只读普通文件、最多 PROGRESS_BYTES 字节：是管道、设备或更大时与看不懂一样处理。
    读得到却看不懂（不是 UTF-8、不是 JSON、不是字典）时，把它改名另存为 .progress.json.broken-时间，
    在标准错误上说一行，再当作空进度——从不悄悄覆盖。是字典、但有几课的记录不合格式（课号不在课表里、
    状态不是 passed/started、时间或判定不是文字……）时，同样先另存原文件，丢掉这几课、留下其余的，
    写回（原子地），并说一行是哪几课。

    Raises:
        ProgressError: 那个位置上是文件夹，或没有权限读。
    """
    path = PROGRESS_FILE if path is None else path
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
    codes = {lesson.code for lesson in CATALOGUE}
    progress = {code: entry for code, entry in data.items() if code in codes and _fits(entry)}
    if len(progress) < len(data):
        bad = sorted(_shown_key(k) for k in data if k not in progress)
        dropped = "、".join(bad[:10]) + (f" 等 {len(bad)} 项" if len(bad) > 10 else "")
        print(f"警告：进度文件 {path.name} 里这几项记录看不懂，已不算数：{dropped}；{_set_aside(path, progress)}，"
              f"其余的课照常记着。", file=sys.stderr)
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


def _shown_key(key: str) -> str:
    """警告里回显的键：控制字符写成转义，太长的截短。"""
    from .messages import safe_text
    text = safe_text(json.dumps(key, ensure_ascii=False)[1:-1][:40])
    return text if len(text) <= 20 else text[:20] + "…"


def _progress_json(progress: dict) -> str:
    return json.dumps(progress, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def record_progress(lesson: Lesson, status: str, verdict: str | None = None, path: Path | None = None) -> None:
    """记下一课的状态（写进 path，默认 PROGRESS_FILE）。已经通过的课不会因为后来的一次失败变回“已开始”。"""
    path = PROGRESS_FILE if path is None else path
    progress = load_progress(path)
    entry = progress.get(lesson.code, {})
    if entry.get("status") == "passed" and status != "passed":
        status = "passed"
    entry.update(status=status, updated=time.strftime("%Y-%m-%d %H:%M:%S"))
    if verdict:
        entry["last_verdict"] = verdict
    progress[lesson.code] = entry
    atomic_write_text(path, _progress_json(progress))


def status_of(lesson: Lesson, progress: dict) -> str | None:
    return progress.get(lesson.code, {}).get("status")


README_SECTIONS = (
    "这一课完成什么",
    "图解",
    "代码",
    "运行",
    "深入一步",
    "验收与排错",
    "小练习与答案",
    "动手补全一小段",
    "上一课 · 下一课",
)
"""每课 README.md 的二级标题（## 开头），按这个顺序出现；“图解”后面可接冒号和小标题。"""
