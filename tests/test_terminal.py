"""80 列的终端：hint、diff、progress、lesson、write 的输出不把一个名字、一行代码或一个课名拆到两行；
./poet lesson 在终端上等实验时转一个带用时的提示，输出接到管道里时一个字也不多。"""
from __future__ import annotations

import io
import os
import re
import sys
import threading
import time

import pytest
from rich.console import Console

from poetry_gpt.courseware.catalogue import BY_NUMBER, CATALOGUE
from poetry_gpt.courseware.cli import display

BORDER = re.compile(r"^[\s│┃|]+|[\s│┃|]+$")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*[A-Za-z0-9_]|[A-Za-z_]")


def lines_of(text: str) -> list[str]:
    """终端上的每一行，去掉两侧的表格与面板边框。"""
    return [BORDER.sub("", line) for line in text.splitlines()]


def assert_whole(pieces, text: str) -> None:
    """pieces 里的每一个（名字、课名、代码行）都整个出现在某一行里。"""
    lines = lines_of(text)
    broken = [p for p in pieces if not any(p in line for line in lines)]
    assert not broken, f"这些被拆到了两行：{broken}\n{text}"


@pytest.fixture
def screen(monkeypatch):
    """display 的输出改写进一块 80 列宽、没有颜色的屏幕；返回读出它的函数。"""
    buffer = io.StringIO()
    monkeypatch.setattr(display, "console", Console(file=buffer, width=80, color_system=None, highlight=False))
    return buffer.getvalue


def test_fold_lines_breaks_only_between_names_and_characters():
    text = "共同的全部留下。first_line = any(g in shared for g in 第 0 句)：要落在共同的韵部里"
    for width in range(12, 60):
        lines = [text[a:b] for a, b in display.fold_lines(text, width)]
        assert all(display.cell_len(line) <= width for line in lines), (width, lines)
        assert all(not line.startswith(("，", "。", "：", "）", " ")) for line in lines), (width, lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for name in ("first_line", "any(g", "shared"):
            assert any(name in line for line in lines), (width, lines)
    title = "最简单的语言模型：二元统计"
    assert [title[a:b] for a, b in display.fold_lines(title, 20, phrase=True)] == ["最简单的语言模型：", "二元统计"]
    code = "再 smoothed / smoothed.sum(dim=1, keepdim=True)。"
    assert all("smoothed.sum(dim=1," in code[a:b] or "smoothed.sum" not in code[a:b]
               for a, b in display.fold_lines(code, 30))


def test_fold_code_keeps_names_whole():
    line = '        raise ValueError(f"输入有 {past + T} 个位置，超过了位置表的 {positions.shape[0]} 行")'
    for width in range(30, 90, 7):
        pieces = display.fold_code(line, width)
        assert all(display.cell_len(p) <= width for p in pieces)
        assert_whole(["ValueError", "positions.shape", "past"], "\n".join(pieces))


def test_every_hint_and_banner_fits_80_columns_without_broken_names(screen):
    for lesson in CATALOGUE:
        display.hint(lesson)
        display.lesson_banner(lesson)
        out = screen()
        assert all(display.cell_len(line) <= 80 for line in out.splitlines())
        assert_whole(set(NAME.findall(lesson.hint + lesson.goal)), out)
        assert_whole([lesson.title, *re.split(r"(?<=[，、；：])", lesson.goal)], out)  # 目标只在标点后折行


def test_hint_16_keeps_names_whole(screen):
    display.hint(BY_NUMBER[16], more=True)
    display.lesson_banner(BY_NUMBER[24])
    assert_whole(["v_hat.sqrt()", "m_hat", "weight_decay", "p.dim()", "诗律解码"], screen())


def test_progress_titles_break_only_at_punctuation(screen):
    rows = [(l.code, l.title, "已开始", "批改出错", "2026-12-01 20:40:11") for l in CATALOGUE]
    display.progress_table(rows, "已通过 0 课")
    out = screen()
    assert all(display.cell_len(line) <= 80 for line in out.splitlines())
    assert_whole([l.title for l in CATALOGUE] + ["12-01 20:40", "最近检查"], out)


def test_diff_at_80_columns_marks_every_line_and_keeps_code_whole(screen):
    lesson = BY_NUMBER[9]
    mine = display_source(lesson.folder / "starter.py")
    ref = display_source(lesson.folder / "solution.py")
    display.solve_diff(lesson, mine, ref)
    out = screen().splitlines()
    body = out[out.index("+++ 参考答案") + 1:]
    assert body and all(line[:1] in " +-@" for line in body), body
    continued = [line for line in body if line[1:4] == "  ↪"]
    assert continued, "参考答案里有一行比 80 列长，应该折开并标出 ↪"
    import difflib
    changed = "\n".join(difflib.unified_diff(mine.splitlines(), ref.splitlines(), lineterm=""))
    assert_whole([n for n in NAME.findall(changed) if len(n) > 1], "\n".join(line[1:].removeprefix("  ↪ ") for line in body))
    assert "放不下并排的两栏" in "\n".join(out[:3])


def test_diff_side_by_side_when_it_fits(screen):
    display.solve_diff(BY_NUMBER[1], "def solve(x):\n    return x + 1\n", "def solve(x):\n    return x\n")
    out = screen()
    assert "你的代码" in out and "参考答案" in out and "return x + 1" in out and "-    return x + 1" in out


def test_write_says_what_its_seconds_measure(screen):
    from poetry_gpt.generate import Poem

    display.poem(Poem(text="床前明月光，疑是地上霜。举头望明月，低头思故乡。", form=5, seed=3560311985, seconds=0.2),
                 "，。", first=True)
    out = screen()
    assert "生成用时 0.20 秒" in out and "不含启动 Python、载入 torch 与模型" in out
    assert all(display.cell_len(line) <= 80 for line in out.splitlines())
    assert_whole(["种子 3560311985", "Python、", "torch"], out)


def display_source(path) -> str:
    from poetry_gpt.courseware.cli.learner import solve_source
    return solve_source(path)


def test_cli_outputs_at_80_columns(poet, workspace):
    """真的命令，COLUMNS=80、输出接到管道里（rich 按 80 列排）。"""
    (workspace / "lessons" / "09").mkdir(parents=True)
    (workspace / "lessons" / "09" / "my_exercise.py").write_bytes((BY_NUMBER[9].folder / "starter.py").read_bytes())
    env = {"COLUMNS": "80", "NO_COLOR": "1"}
    hint = poet("hint", "16", "--more", env=env)
    assert_whole(["v_hat.sqrt()", "m_hat", "p.dim()"], hint.stdout)
    diff = poet("diff", "9", env=env)
    assert diff.returncode == 0 and "↪" in diff.stdout
    lesson = poet("lesson", "9", env=env)
    assert lesson.returncode == 0
    assert "实验运行中" not in lesson.stdout and "\r" not in lesson.stdout  # 管道里没有转圈的提示
    assert_whole(["./poet lesson 9 --read", "./poet start 9"], lesson.stdout)
    usage = poet("write", "--help", env=env)
    assert usage.stdout.startswith("用法：./poet write")
    for run in (hint, diff):
        assert all(display.cell_len(line) <= 80 for line in run.stdout.splitlines()), run.stdout
    assert "（位置 0–11）" in lesson.stdout  # 热力图的标题在标点处折行，不拆开“（位置 0–11）”


def test_spinner_shows_elapsed_time_while_the_experiment_is_quiet(monkeypatch):
    """实验停下来算的时候转提示，新的输出来时先擦掉提示；输出的字节原样转过去。"""
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", write_through=True))
    monkeypatch.setattr(display, "SPIN_AFTER", 0.3)
    read, write = os.pipe()

    def experiment():
        os.write(write, "第一行\n".encode())
        time.sleep(1.0)
        os.write(write, "第二行\n".encode())
        os.close(write)

    worker = threading.Thread(target=experiment)
    started = time.monotonic()
    worker.start()
    display.relay_with_spinner(read, started)
    worker.join()
    os.close(read)
    data = out.getvalue().decode("utf-8")
    assert "实验运行中 … 已用 " in data and data.startswith("第一行\n") and data.endswith("第二行\n")
    assert re.sub(r"\r\x1b\[2K(\x1b\[2m.*?\x1b\[0m)?", "", data) == "第一行\n第二行\n"


def test_no_spinner_off_a_terminal(monkeypatch):
    monkeypatch.setattr(display, "console", Console(file=io.StringIO(), width=80))
    assert not display.spinner_wanted()
