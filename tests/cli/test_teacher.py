"""老师的命令 ./poet grade：成绩表走 display，忽略的每一项都写明原因、名字里的控制字符写成转义。"""

import io
import re
import sys

from conftest import ROOT

from courseware.catalogue import BY_NUMBER
from courseware.cli import display, tables
from courseware.grading import Verdict

GOOD = """\
def solve(words, positions, past):
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError("位置表不够长")
    return words + positions[past:past + T]
"""


# ---------- 成绩表走 display；帮助的标题用全角冒号 ----------


def test_grade_table_is_drawn_by_the_display_module(monkeypatch):
    out = io.TextIOWrapper(io.BytesIO(), encoding="gbk", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    display.tolerant_output()
    nine, ten = BY_NUMBER[9], BY_NUMBER[10]
    results = {
        ("甲", "09"): Verdict("passed", ""),
        ("甲", "10"): Verdict("wrong", ""),
        ("乙", "09"): Verdict("timeout", ""),
    }
    tables.grade_table(
        ["甲", "乙"],
        [nine, ten],
        results,
        {"09": (1, 2, 2), "10": (0, 1, 2)},
        {"通过": 1, "答案错误": 1, "超时": 1},
        20,
        "缺",
        3.25,
    )
    text = out.buffer.getvalue().decode("gbk")
    assert "成绩表" in text and "√" in text and "× 答案错误" in text and "× 超时" in text and "缺" in text
    assert re.search(r"交了的通过率 \W+ 1/2 50% \W+ 0/1 0% ", text) and re.search(
        r"全班通过率 \W+ 1/2 50% \W+ 0/2 0% ", text
    )
    assert "全班通过率：没交的算作没通过" in text and "判定统计：通过 1，答案错误 1，超时 1。用时 3.2 秒" in text
    for name in ("classroom.py", "gradebook.py"):  # 批改逻辑与报告本身不画表
        source = (ROOT / "courseware" / "grading" / name).read_text(encoding="utf-8")
        assert "rich" not in source and "console" not in source


# ---------- 批改：忽略的每一项都有原因，名字里的控制字符写成转义 ----------


def test_grade_lists_every_ignored_entry_and_escapes_tabs(monkeypatch, tmp_path):
    from courseware.grading.classroom import find_submissions
    from courseware.grading.gradebook import pass_rates

    root = tmp_path / "class"
    for rel, text in (
        ("amy/lessons/09/my_exercise.py", GOOD),
        ("amy/lessons/09/README.md", "笔记"),
        ("amy/notes.txt", "笔记"),
        ("amy/notes/a.py", GOOD),
        ("amy/.DS_Store", ""),
        ("b\tc/09.py", GOOD),
        ("d\ne/09.py", GOOD),
        ("zed/99.py", GOOD),
        ("zed/lessons/readme.txt", ""),
        ("__MACOSX/amy/09.py", GOOD),
        ("名单.txt", ""),
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "amy" / "lessons" / "10").mkdir()
    (root / "amy" / "lessons" / "08").symlink_to(root / "amy" / "notes")
    found = find_submissions(root, [BY_NUMBER[9]])
    assert found.learners == ["amy", "b\tc", "d\\ne", "zed"] and found.hidden == 2  # __MACOSX 与 .DS_Store；换行写成 \n
    assert found.ignored == [
        "amy/lessons/08：符号链接，不批改",
        "amy/lessons/09/README.md：不是 NN.py 或 lessons/NN/my_exercise.py",
        "amy/lessons/10/：空文件夹",
        "amy/notes/：不是 NN.py 或 lessons/NN/my_exercise.py",
        "amy/notes.txt：不是 NN.py 或 lessons/NN/my_exercise.py",
        "zed/99.py：第 99 课不在课表里或还没写好",
        "zed/lessons/readme.txt：不是 NN.py 或 lessons/NN/my_exercise.py",
        "zed/：里面没有认得出的练习文件",
        "名单.txt：不是学习者文件夹",
    ]
    results = {(name, "09"): Verdict("passed", "") for name in found.learners[:2]}
    assert pass_rates(found.learners, [BY_NUMBER[9]], results) == {"09": (2, 2, 4)}  # zed 没有认得出的文件：也在全班里

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(display.console, "_width", 200)  # 长路径不折行
    tables.roster(str(root), found, None, "my_exercise.py")
    tables.grade_table(found.learners, [BY_NUMBER[9]], results, {"09": (2, 2, 4)}, {"通过": 2}, 20, "缺", 1.0)
    text = out.buffer.getvalue().decode("utf-8")
    assert "\t" not in text and "找到 4 名学习者：amy、b\\tc、d\\ne、zed" in text
    assert "忽略 9 项" in text and "名单.txt：不是学习者文件夹" in text and "另有 2 个隐藏的文件或文件夹" in text
    rows = [line for line in text.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == [
        "amy",
        "b\\tc",
        "d\\ne",
        "zed",
        "交了的通过率",
        "全班通过率",
    ], text


def test_the_header_counts_every_file_found_in_each_layout(monkeypatch, tmp_path):
    """开头的份数是两种布局里各找到几份：算作没交的（原样的起始代码）、被另一种布局盖掉的也算，
    不会在找到了 lessons/NN/my_exercise.py 时写“0 份”。"""
    from courseware.grading.classroom import find_submissions

    starter = (BY_NUMBER[9].folder / "starter.py").read_text(encoding="utf-8")
    for rel, text in (
        ("amy/09.py", GOOD),
        ("amy/lessons/09/my_exercise.py", starter),
        ("bo/lessons/09/my_exercise.py", starter),
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    found = find_submissions(tmp_path, [BY_NUMBER[9]])
    assert list(found.submissions) == [("amy", "09")] and list(found.untouched) == [("bo", "09")]
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(display.console, "_width", 200)
    tables.roster(str(tmp_path), found, None, "my_exercise.py")
    text = out.buffer.getvalue().decode("utf-8")
    assert "练习文件 3 份：NN.py 1 份，lessons/NN/my_exercise.py 2 份" in text, text
    assert "算作没交 1 份" in text and "bo/lessons/09/my_exercise.py" in text, text
