"""课程目录、课号解析与学习者的工作区。

课表本身是数据文件 lessons/manifest.toml（全课唯一的一份）；CLI、自检、测试和网站都经由这里读它，
别处不再另存课程列表，也不写死课数。导入本模块不读文件：SECTIONS、CATALOGUE、BY_NUMBER 第一次用到时才读课表。
学习进度的读写在 lesson_progress.py。
"""

from __future__ import annotations

import functools
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from poetry_gpt.common import ROOT, DataFileError, read_toml

LESSONS_DIR = ROOT / "lessons"
EXERCISE = "my_exercise.py"

MANIFEST = LESSONS_DIR / "manifest.toml"
MANIFEST_FORMAT = 1
"""manifest.toml 的格式版本；改了字段的含义就加一，这里同时改读法。"""
LESSON_FIELDS = {"number": int, "section": str, "title": str, "goal": str, "exercise": str, "hint": str}
"""每个 [[lesson]] 必须有的字段与类型。"""
OPTIONAL_FIELDS = {"more": str, "chart": str, "kernel_sensitive": bool}
"""可以不写的字段（含义见 Lesson 的同名字段）。"""
_CHART_NAME = re.compile(r"[a-z][a-z_]*")


@functools.cache
def workspace() -> Path:
    """学习者自己的文件（练习、进度）放在哪里：环境变量 POET_WORKSPACE，没设时就是仓库（测试时指向临时目录）。
    第一次调用时读环境变量，之后不变。"""
    return Path(os.environ.get("POET_WORKSPACE") or ROOT)


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
    """完整的做法，./poet hint N --more 才显示；hint 只是第一步的点拨（看哪里、想什么）。"""
    chart: str = ""
    """网页上的图由 courseware/site/charts/ 里的哪个模块画（模块里的 lessonNN 函数）；空的就没有图。"""
    kernel_sensitive: bool = False
    """实验印的数出自换了 CPU 内核会变的浮点求和：tests/lessons/test_kernels.py 在每一种内核下重跑它。"""

    @property
    def code(self) -> str:
        """两位课号，如 "09"。"""
        return f"{self.number:02d}"

    @property
    def folder(self) -> Path:
        return LESSONS_DIR / self.code

    @property
    def exercise_file(self) -> Path:
        """学习者的练习文件 lessons/NN/my_exercise.py（在 workspace() 下）。"""
        return workspace() / "lessons" / self.code / EXERCISE

    @property
    def available(self) -> bool:
        """课程文件夹已写好（五个文件都在）。"""
        return all((self.folder / f).is_file() for f in LESSON_FILES)

    @property
    def section_title(self) -> str:
        return f"{self.section} {_manifest()[0][self.section]}"


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
        wrong = [k for k, kind in LESSON_FIELDS.items() if type(row.get(k)) is not kind]  # bool 不算 int
        wrong += [k for k, kind in OPTIONAL_FIELDS.items() if k in row and type(row[k]) is not kind]
        extra = sorted(set(row) - set(LESSON_FIELDS) - set(OPTIONAL_FIELDS))
        if wrong or extra:
            raise ManifestError(f"课表 {path} 第 {i} 个 [[lesson]]：缺少或写错 {wrong}，多出 {extra}。")
        if "chart" in row and not _CHART_NAME.fullmatch(row["chart"]):
            raise ManifestError(
                f"课表 {path} 第 {i} 课的 chart {row['chart']!r}：要写 courseware/site/charts/ 里一个模块的名字，"
                '如 "attention"。'
            )
        if row["number"] != i:
            raise ManifestError(
                f"课表 {path} 第 {i} 个 [[lesson]] 的 number 是 {row['number']}：课号要从 1 起按顺序连续。"
            )
        if row["section"] not in sections:
            raise ManifestError(f"课表 {path} 第 {i} 课的 section {row['section']!r} 不在 [[section]] 里。")
        lessons.append(
            Lesson(
                **{
                    k: row[k].strip() if isinstance(row[k], str) else row[k]
                    for k in (*LESSON_FIELDS, *OPTIONAL_FIELDS)
                    if k in row
                }
            )
        )
    if not lessons:
        raise ManifestError(f"课表 {path} 里一课也没有。")
    return sections, lessons


LESSON_FILES = ("README.md", "experiment.py", "starter.py", "solution.py", "check.py")


@functools.cache
def _manifest() -> tuple[dict[str, str], list[Lesson], dict[int, Lesson]]:
    """(SECTIONS, CATALOGUE, BY_NUMBER)：课表在第一次用到时读一次。

    Raises:
        ManifestError: 见 load_manifest。
    """
    sections, lessons = load_manifest()
    return sections, lessons, {lesson.number: lesson for lesson in lessons}


_LAZY = {"SECTIONS": 0, "CATALOGUE": 1, "BY_NUMBER": 2}
"""模块属性 → _manifest() 里的第几项。SECTIONS：节号 → 节名；CATALOGUE：按课号排好的每一课；BY_NUMBER：课号 → 课。"""


def __getattr__(name: str):
    """catalogue.CATALOGUE、from .catalogue import SECTIONS 这样取课表时才读它（PEP 562 的模块 __getattr__）。"""
    if name in _LAZY:
        return _manifest()[_LAZY[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class LessonNumberError(ValueError):
    """课号写错了；消息是给学习者看的中文。"""


def parse_lesson(text: str, require_available: bool = True) -> Lesson:
    """把 "9"、"09"、"lesson-09" 解析成课表里的一课。

    Raises:
        LessonNumberError: 不是 1–26 之间的课号，或（require_available 时）这课还没写好。
    """
    _, lessons, by_number = _manifest()
    m = re.fullmatch(r"(?:lesson[-_]?)?0*(\d{1,2})", str(text).strip(), flags=re.IGNORECASE)
    number = int(m.group(1)) if m else None
    if number not in by_number:
        raise LessonNumberError(f"“{text}”不是有效的课号：请写 1 到 {len(lessons)} 之间的数，例如 9、09 或 lesson-09。")
    lesson = by_number[number]
    if require_available and not lesson.available:
        ready = "、".join(l.code for l in lessons if l.available) or "暂无"
        raise LessonNumberError(f"第 {lesson.code} 课《{lesson.title}》即将推出，还不能使用。现在可以学的课：{ready}。")
    return lesson


def backup_path(name_for) -> Path:
    """备份用的、还不存在的路径 name_for(时间)：时间写成 20250102-030405；同一秒里这个名字已经有了，
    就依次试 20250102-030405-2、-3……，从不盖掉上一个备份。"""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = name_for(stamp), 1
    while path.exists():
        n += 1
        path = name_for(f"{stamp}-{n}")
    return path


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
