"""老师手册 docs/teaching.md 里“每课不许用的捷径”一节：由各课 check.py 的规则生成，不靠手抄。

规则只写在 check.py 里（FORBIDDEN、FORBIDDEN_NAMES、source_problem、TRIPWIRES，见 courseware/grading 包的说明）；
改了规则之后运行 ``./poet verify --docs`` 重写这一节，tests/courseware/test_teaching.py 查提交的与生成的一字不差。
"""

from __future__ import annotations

import inspect
from pathlib import Path

from poetry_gpt.common import ROOT, atomic_write_text, os_reason

from ..catalogue import CATALOGUE, Lesson
from ..grading import lesson_check

GUIDE = ROOT / "docs" / "teaching.md"
BEGIN = "<!-- 以下由 ./poet verify --docs 从各课的 check.py 生成，不要手改 -->"
END = "<!-- 生成的到此为止 -->"


class GuideError(ValueError):
    """docs/teaching.md 里找不到生成的那一节（两行标记）；消息是中文。"""


def _code(names) -> str:
    return "、".join(f"`{name}`" for name in names)


def lesson_rules(lesson: Lesson) -> list[str]:
    """一课的捷径规则，每条一行文字；没有规则的课是空列表。"""
    check = lesson_check(lesson)
    rules = []
    if getattr(check, "FORBIDDEN", None):
        rules.append(f"名字里含有这些片段的（不分大小写）：{_code(check.FORBIDDEN)}")
    if getattr(check, "FORBIDDEN_NAMES", None):
        rules.append(f"一模一样的这些名字：{_code(check.FORBIDDEN_NAMES)}")
    problem = getattr(check, "source_problem", None)
    if problem is not None:
        first = "".join(line.strip() for line in inspect.getdoc(problem).splitlines()).split("。")[0]
        rules.append(f"另查源码：{first}。")
    if getattr(check, "TRIPWIRES", None):
        rules.append(f"运行时的绊线：{_code(check.TRIPWIRES)}")
    return rules


def rules_section() -> str:
    """生成的那一节（不含两行标记）：有规则的每一课一段。"""
    parts = []
    for lesson in CATALOGUE:
        if not (lesson.folder / "check.py").is_file():
            continue
        rules = lesson_rules(lesson)
        if rules:
            parts.append(f"**第 {lesson.code} 课 · {lesson.title}**\n\n" + "\n".join(f"- {r}" for r in rules))
    return "\n\n".join(parts)


def guide_text(current: str) -> str:
    """把 current（docs/teaching.md 的全文）里两行标记之间换成现在生成的那一节。

    Raises:
        GuideError: 标记缺了或次序不对。
    """
    start, end = current.find(BEGIN), current.find(END)
    if start < 0 or end < start:
        raise GuideError(f"{GUIDE.relative_to(ROOT)} 里要有“{BEGIN}”与“{END}”两行，生成的规则写在它们之间")
    return current[: start + len(BEGIN)] + "\n\n" + rules_section() + "\n\n" + current[end:]


def guide_problem(path: Path = GUIDE) -> str | None:
    """老师手册里生成的那一节与各课 check.py 不一致时的中文说明（./poet verify 列出它）；一致时为 None。"""
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        current = path.read_text(encoding="utf-8")
        if guide_text(current) == current:
            return None
    except OSError as e:
        return f"读不出 {shown}：{os_reason(e)}"
    except GuideError as e:
        return str(e)
    return f"{shown}：每课不许用的捷径与各课的 check.py 不一致，运行 ./poet verify --docs 重写"


def write_guide() -> bool:
    """重写 docs/teaching.md 里生成的那一节；返回内容是否变了。"""
    current = GUIDE.read_text(encoding="utf-8")
    wanted = guide_text(current)
    if wanted != current:
        atomic_write_text(GUIDE, wanted)
    return wanted != current
