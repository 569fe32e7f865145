"""终端：80 列里 hint、diff、progress、lesson、write 的输出不把一个名字、一行代码或一个课名拆到两行；
./poet lesson 在终端上等实验时转一个带用时的提示，输出接到管道里时一个字也不多；GBK/ASCII 终端、提前关掉的管道、
没人读的输出，命令照样做完。

终端编码在进程里用一个按该编码、errors="strict" 打开的 stdout 代替——与 PYTHONIOENCODING=gbk 时 Python 给的一样。
"""

import io
import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest
from conftest import ROOT
from rich.cells import cell_len
from rich.console import Console

from courseware import catalogue, lesson_progress
from courseware.catalogue import BY_NUMBER, CATALOGUE, SECTIONS
from courseware.cli import code_view, display, main
from poetry_gpt.checkpoint import read_checkpoint
from poetry_gpt.data import default_tokenizer

BORDER = re.compile(r"^[\s│┃|]+|[\s│┃|]+$")
ESC = re.compile(r"\x1b\[[0-9;]*m")
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
    """display 与 code_view 的输出改写进一块 80 列宽、没有颜色的屏幕；返回读出它的函数。"""
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, color_system=None, highlight=False)
    for module in (display, code_view):
        monkeypatch.setattr(module, "console", console)
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
    assert all(
        "smoothed.sum(dim=1," in code[a:b] or "smoothed.sum" not in code[a:b] for a, b in display.fold_lines(code, 30)
    )


def test_fold_code_keeps_names_whole():
    line = '        raise ValueError(f"输入有 {past + T} 个位置，超过了位置表的 {positions.shape[0]} 行")'
    for width in range(30, 90, 7):
        pieces = code_view.fold_code(line, width)
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
    code_view.solve_diff(lesson, mine, ref)
    out = screen().splitlines()
    body = out[out.index("+++ 参考答案") + 1 :]
    assert body and all(line[:1] in " +-@" for line in body), body
    continued = [line for line in body if line[1:4] == "  ↪"]
    assert continued, "参考答案里有一行比 80 列长，应该折开并标出 ↪"
    import difflib

    changed = "\n".join(difflib.unified_diff(mine.splitlines(), ref.splitlines(), lineterm=""))
    assert_whole(
        [n for n in NAME.findall(changed) if len(n) > 1], "\n".join(line[1:].removeprefix("  ↪ ") for line in body)
    )
    assert "放不下并排的两栏" in "\n".join(out[:3])


def solution_lines(out: str) -> list[str]:
    """./poet solution 在终端上的输出 → 源码的每一行：行号开头的行开始新的一行，↪ 开头的行接在上一行后面。"""
    lines: list[str] = []
    for row in out.splitlines()[1:]:
        mark, bar, code = row.partition(" │ ")
        assert bar and cell_len(row) <= 80, row
        if mark.strip() == code_view.CONTINUED:
            lines[-1] += " " + code.lstrip()
        else:
            assert mark.strip() == str(len(lines) + 1), row
            lines.append(code)
    return lines


@pytest.mark.parametrize("lesson", CATALOGUE, ids=lambda l: l.code)
def test_solution_never_cuts_code_at_80_columns_or_in_a_pipe(monkeypatch, lesson):
    """终端上长行折开、标出 ↪，一个字也不少；接到管道里时原样印出 solution.py 里的 solve。"""
    source = display_source(lesson.folder / "solution.py")
    squeeze = lambda text: "".join(text.split())  # noqa: E731
    for terminal in (True, False):
        buffer = io.StringIO()
        monkeypatch.setattr(code_view, "console", Console(file=buffer, width=80, force_terminal=terminal))
        code_view.solution(lesson, source)
        out = ESC.sub("", buffer.getvalue())
        if not terminal:
            assert out.splitlines()[1:] == source.splitlines()
            continue
        shown = solution_lines(out)
        assert len(shown) == len(source.splitlines())
        for mine, line in zip(shown, source.splitlines()):
            assert squeeze(mine) == squeeze(line) and mine.startswith(line[: len(line) - len(line.lstrip())])


def test_solution_26_in_a_pipe_at_80_columns(poet):
    run = poet("solution", "26", env={"COLUMNS": "80"})
    assert run.returncode == 0
    assert (
        "        return vocab_size * C + context_length * C + n_layers * (12 * C * C + 13 * C) + 2 * C\n" in run.stdout
    )


def test_diff_side_by_side_when_it_fits(screen):
    code_view.solve_diff(BY_NUMBER[1], "def solve(x):\n    return x + 1\n", "def solve(x):\n    return x\n")
    out = screen()
    assert "你的代码" in out and "参考答案" in out and "return x + 1" in out and "-    return x + 1" in out


def test_write_says_what_its_seconds_measure(screen):
    from poetry_gpt.generate import Poem

    display.poem(
        Poem(text="床前明月光，疑是地上霜。举头望明月，低头思故乡。", form=5, seed=3560311985, seconds=0.2),
        "，。",
        first=True,
    )
    out = screen()
    assert "生成用时 0.20 秒" in out and "不含启动 Python、载入 torch 与模型" in out
    assert all(display.cell_len(line) <= 80 for line in out.splitlines())
    assert_whole(["种子 3560311985", "Python、", "torch"], out)
    assert "草稿" not in out  # 只写一份时不提草稿
    kept = Poem(
        text="床前明月光，疑是地上霜。举头望明月，低头思故乡。", form=5, seed=7, log_prob=-2.0812, drafts=[{}] * 8
    )
    display.poem(kept, "，。", first=True)
    out = screen()
    assert "8 份草稿里模型最有把握的一份（每字平均对数概率 -2.08）" in out.replace("\n", "")
    assert all(display.cell_len(line) <= 80 for line in out.splitlines())
    kept.score, before = -1.5213, len(screen())
    display.poem(kept, "，。", first=True, score="coherence")  # 按 coherence 留下的不一定是模型最有把握的一份
    out = screen()[before:].replace("\n", "")
    assert "8 份草稿里 coherence 分数最高的一份（分数 -1.52，每字平均对数概率 -2.08）" in out and "最有把握" not in out


def display_source(path) -> str:
    from courseware.cli.learner import solve_source

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


CLOSING = "，。、；：！？）》」』”’"


@pytest.mark.parametrize("number", [5, 21])
def test_read_wraps_chinese_like_chinese_and_keeps_code_whole(poet, number):
    """--read 在 80 列里：任意两个汉字之间都能折（“第 20 课的贪心……”不被挪到下一行），行首没有逗号、句号、
    右括号；行内代码不拆；代码块与文字图放得下的行原样不动，放不下的折开、以 ↪ 接着；答案折起来。"""
    readme = (BY_NUMBER[number].folder / "README.md").read_text(encoding="utf-8")
    run = poet("lesson", str(number), "--read", env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert all(cell_len(line) <= 80 for line in lines), [l for l in lines if cell_len(l) > 80]
    starts = [re.sub(r"^\s*(?:•|\d+(?= ))?\s*", "", line)[:1] for line in lines]  # 去掉列表的记号
    assert not [line for line, first in zip(lines, starts) if first and first in CLOSING]
    shown_text = re.sub(r"<details>.*?</details>", "", readme, flags=re.S)  # 答案折起来了
    assert_whole({code for code in re.findall(r"`([^`\n]+)`", shown_text) if cell_len(code) < 60}, run.stdout)
    fenced = re.findall(r"^```\w*\n(.*?)^```", readme, re.S | re.M)
    for line in (l.rstrip() for block in fenced for l in block.splitlines()):
        if cell_len(line) <= 76 and line.strip():
            assert any(line in shown for shown in lines), line
    assert "答案折起来了" in run.stdout and "往下就是答案" not in run.stdout
    if number == 21:
        assert any("第 20 课的贪心解码每一步" in line for line in lines)
        assert any(line.lstrip().startswith("↪") for line in lines)  # 文字图里那行“（再 softmax，和为 1）”


def fenced_blocks(readme: str, language: str) -> list[list[str]]:
    return [block.splitlines() for block in re.findall(rf"^```{language}\n(.*?)^```", readme, re.S | re.M)]


def test_read_moves_figure_notes_below_the_figure_at_80_columns(poet):
    """第 16 课的学习率图右边写着批注（← 第 100 步：峰值……），整行比 80 列宽：--read 在 80 列里图一格不动，
    批注换成编号、挪到图下面一条条列出（接着写在下一行的批注并进同一条），没有一行折开。"""
    readme = (BY_NUMBER[16].folder / "README.md").read_text(encoding="utf-8")
    annotated = [
        line for block in fenced_blocks(readme, "text") if any(cell_len(l) > 80 for l in block) for line in block
    ]
    drawings = [line.split("←")[0] for line in annotated if "←" in line]  # 连同 ← 前的空格：箭头还在原来那一列
    assert len(drawings) >= 3  # 课文里确有这样一张图
    run = poet("lesson", "16", "--read", env={"COLUMNS": "80", "NO_COLOR": "1"})
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and all(cell_len(line) <= 80 for line in lines), [l for l in lines if cell_len(l) > 80]
    for n, drawing in enumerate(drawings):
        mark = "①②③④⑤⑥⑦⑧⑨⑩"[n]
        assert f"{drawing}← {mark}" in lines, drawing
        note = next(line for line in lines if line.startswith(f"{mark} "))
        assert note.split()[1] in next(l for l in annotated if l.split("←")[0] == drawing), note
    notes = "".join(line.strip() for line in lines if re.match(r"^([①-⑩] |  \S)", line))
    for line in annotated:  # 每一条批注的字都在图下面，一个也没丢；只有图留在图里
        if "←" in line:
            assert "".join(line.split("←")[1].split()) in "".join(notes.split()), line
        elif line.rstrip() not in lines:  # 接着上一条写的批注：图的部分留下，字挪到了下面
            text = re.split(r"\s{2,}", line.rstrip())[-1]
            drawing = line.rstrip()[: -len(text)]
            assert drawing.rstrip() in lines and "".join(text.split()) in "".join(notes.split()), line
    figure = lines[lines.index(f"{drawings[0]}← ①") : lines.index(next(l for l in lines if l.startswith("① ")))]
    assert not any("↪" in line for line in figure)


def test_read_keeps_code_comments_whole_at_80_columns(poet):
    """第 11 课的代码行尾注释对齐在第 80 列之后：--read 在 80 列里把对齐用的空格缩成两个，放得下就整行不折；
    还放不下时在 # 之前折，注释整条挪到 ↪ 的下一行——不会从“[B, T, C]”的括号中间断开。"""
    readme = (BY_NUMBER[11].folder / "README.md").read_text(encoding="utf-8")
    run = poet("lesson", "11", "--read", env={"COLUMNS": "80", "NO_COLOR": "1"})
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and all(cell_len(line) <= 80 for line in lines)
    commented = [l for block in fenced_blocks(readme, "python") for l in block if re.search(r"\S {3,}# ", l)]
    squeezed = [re.sub(r"(\S) {3,}# ", r"\1  # ", line) for line in commented if cell_len(line) > 80]
    assert squeezed  # 课文里确有对齐到 80 列之外的注释
    for line in squeezed:
        if cell_len(line) <= 80:
            assert line in lines, line
        else:
            code, comment = line.split("  # ", 1)
            assert code in lines and any(l.strip() == f"↪ # {comment}" for l in lines), line
    for line in lines:  # 行尾注释里的括号成对：没有从括号中间折开
        comment = line.split("# ", 1)[1] if "# " in line else ""
        assert comment.count("[") == comment.count("]") and comment.count("(") == comment.count(")"), line


def test_fold_spans_breaks_before_a_comment_not_inside_its_brackets():
    line = "    q, k, v = self.qkv(x).split(x.shape[-1], dim=2)                       # 各 [B, T, C]"
    assert [line[a:b] for a, b in code_view.fold_spans(line, 80, 74)] == [
        "    q, k, v = self.qkv(x).split(x.shape[-1], dim=2)",
        "# 各 [B, T, C]",
    ]
    long_comment = "x = 1  # 形状 [B, H, T, C/H]：每个头一张表，" + "再说几句话，" * 8
    pieces = [long_comment[a:b] for a, b in code_view.fold_spans(long_comment, 40)]
    assert all(cell_len(p) <= 40 for p in pieces) and pieces[0] == "x = 1  # 形状 [B, H, T, C/H]："
    assert all(p.endswith("，") for p in pieces[1:-1]) and "".join(pieces) == long_comment.replace("：", "：", 1)
    assert code_view.fold_code("val = f(p, keywords=()) for p in val", 24)[0] == "val = f(p, keywords=())"
    assert code_view.comment_start('s = "#不是注释"  # 是') == len('s = "#不是注释"  ')


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


def test_diff_wraps_long_lines_instead_of_cutting_them(capsys, monkeypatch):
    from courseware.catalogue import BY_NUMBER
    from courseware.cli import display

    monkeypatch.setattr(display.console, "width", 80)
    mine = "def solve(x):\n    return x  # " + "很长的注释" * 12 + "末尾\n"
    code_view.solve_diff(BY_NUMBER[1], mine, "def solve(x):\n    return x\n")
    shown = capsys.readouterr().out
    # 80 列放不下并排的两栏：只列统一差异，长行折开，接下去的一行也以 + 或 - 开头，行尾看得到
    assert "放不下并排的两栏" in shown and shown.count("末尾") == 1
    assert "-  ↪ " in shown and all(line[:1] in " +-@" for line in shown.split("--- 你的代码")[1].splitlines()[1:])


TOK = default_tokenizer()
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
GOOD = """\
def solve(words, positions, past):
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError("位置表不够长")
    return words + positions[past:past + T]
"""


def run_main(monkeypatch, *argv, encoding="utf-8"):
    """在进程里运行 poet，stdout、stderr 换成 encoding 编码的流（stdout 为 strict，stderr 与 Python 一样为
    backslashreplace）。返回 (退出码, stdout 的字节, stderr 的文字)。"""
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="backslashreplace", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse：--help（0）或参数写错（2）
        code = e.code
    return code, out.buffer.getvalue(), err.buffer.getvalue().decode(encoding)


def subprocess_poet(*args, env=None, **kwargs):
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PYTHONIOENCODING")} | (env or {})
    return subprocess.run([sys.executable, "-m", "courseware.cli", *args], cwd=ROOT, env=full, timeout=120, **kwargs)


# ---------- GBK 与 ASCII 终端 ----------


@pytest.fixture(scope="module")
def learner_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("learner") / "mine.py"
    path.write_text("import torch\n\n\n" + GOOD, encoding="utf-8")
    return path


COMMANDS = {  # 命令 → (退出码, UTF-8 里能看到的一段字)
    "map": ([], 0, "学习路径/03 · GPT 的内部"),
    "progress": (["progress"], 0, "学习进度"),
    "hint": (["hint", "9"], 0, "广播"),
    "read": (["lesson", "9", "--read"], 0, "位置"),
    "write": (["write", "月", "--seed", "1"], 0, "月"),
    "help": (["--help"], 0, "选项："),
    "eval-help": (["eval", "--help"], 0, "--checkpoint"),
    "grade-help": (["grade", "--help"], 0, "班级文件夹"),
    "bad-lesson": (["lesson", "99"], 2, "不是有效的课号"),
    "bad-number": (["write", "月", "--top-p", "2"], 2, "--top-p"),
}


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize("encoding", ["gbk", "ascii"])
def test_every_command_survives_a_gbk_or_ascii_terminal(monkeypatch, name, encoding):
    argv, expected_code, words = COMMANDS[name]
    code, out, err = run_main(monkeypatch, *argv, encoding=encoding)
    assert code == expected_code, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    if encoding == "gbk":  # 汉字都写得出来；写不出的字（✓、盲文点）才换成 ?
        assert words in out.decode("gbk") + err
    elif expected_code == 0:  # 标准输出只有 ASCII 字节，汉字都成了 ?
        assert words.encode("ascii", "replace").decode("ascii") in out.decode("ascii")
    else:  # 标准错误与 Python 自己的一样：写成 \u4e0d 这样的转义
        assert words.encode("ascii", "backslashreplace").decode("ascii") in err


def test_check_works_in_an_ascii_terminal(monkeypatch, learner_file):
    code, out, err = run_main(monkeypatch, "check", "9", str(learner_file), encoding="ascii")
    assert code == 0, err
    text = out.decode("ascii")
    assert "+" in text and "?" in text  # ASCII 的边框；汉字成了 ?
    assert "Traceback" not in err


def test_marks_degrade_to_what_the_terminal_can_write(monkeypatch):
    for encoding, (yes, no) in (("utf-8", "✓✗"), ("gbk", "√×"), ("ascii", "vx")):
        out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)
        monkeypatch.setattr(sys, "stdout", out)
        display.tolerant_output()
        assert display.marks() == (yes, no)
        display.course_map(SECTIONS, CATALOGUE, {"09": "passed"})
        text = out.buffer.getvalue().decode(encoding)
        assert (f"{yes} 已通过" if encoding != "ascii" else "v ???") in text
        if encoding == "utf-8":
            assert "╭" in text
        else:
            assert "╭" not in text and "+" in text  # rich 换成了 ASCII 的边框


def test_json_stays_valid_and_lossless_in_an_ascii_terminal(monkeypatch):
    _, utf, _ = run_main(monkeypatch, "write", "月", "--seed", "3", "--json")
    code, ascii_out, err = run_main(monkeypatch, "write", "月", "--seed", "3", "--json", encoding="ascii")
    assert code == 0, err
    untimed = lambda poems: [{k: v for k, v in p.items() if k != "seconds"} for p in poems]  # noqa: E731
    assert untimed(json.loads(ascii_out.decode("ascii"))) == untimed(json.loads(utf.decode("utf-8")))
    assert "月" in json.loads(ascii_out)[0]["text"]


def test_json_in_a_gbk_terminal_writes_hanzi_as_hanzi(monkeypatch):
    """PYTHONIOENCODING=gbk：汉字照样是汉字（不是 \\u6708），GBK 写不出的字（🌙）才转义；JSON 读回来一样。"""
    from courseware.cli import display

    code, out, err = run_main(monkeypatch, "write", "月", "--seed", "3", "--json", encoding="gbk")
    assert code == 0, err
    text = out.decode("gbk")
    assert "\\u" not in text and "月" in json.loads(text)[0]["text"] and "月" in text
    buffer = io.TextIOWrapper(io.BytesIO(), encoding="gbk", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", buffer)
    display.write_json({"诗": "月🌙"})
    written = buffer.buffer.getvalue().decode("gbk")
    assert "诗" in written and "\\ud83c\\udf19" in written and json.loads(written) == {"诗": "月🌙"}


def test_grade_works_in_a_gbk_terminal(monkeypatch, tmp_path):
    for name, body in (("甲", GOOD), ("乙", GOOD.replace("words + positions", "words - positions"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "09.py").write_text("import torch\n\n\n" + body, encoding="utf-8")
    code, out, err = run_main(monkeypatch, "grade", str(tmp_path), "--lessons", "9", "--jobs", "2", encoding="gbk")
    text = out.decode("gbk")
    assert code == 0, err
    table = text[text.index("成绩表") :]
    assert "乙、甲" in text and "√" in table and "× 答案错误" in table and "1/2 50%" in table, text
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "env, args",
    [
        ({"PYTHONIOENCODING": "ascii"}, ["write", "月", "--seed", "2"]),
        ({"PYTHONIOENCODING": "gbk"}, ["lesson", "9"]),  # 实验在子进程里：它的输出也要降级
        ({"LANG": "C", "LC_ALL": "C"}, ["progress"]),
    ],
)
def test_real_terminal_encodings(workspace, env, args):
    run = subprocess_poet(*args, env={"POET_WORKSPACE": str(workspace), **env}, capture_output=True)
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 0, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    if env.get("PYTHONIOENCODING") == "ascii":
        run.stdout.decode("ascii")
    elif env.get("PYTHONIOENCODING") == "gbk":
        assert "位置" in run.stdout.decode("gbk") and "实验用时" in run.stdout.decode("gbk")


# ---------- 提前关掉的管道 ----------


@pytest.mark.parametrize("args", [["write", "月"], ["progress"], ["lesson", "9"], ["--help"]])
def test_a_reader_that_is_already_gone_is_not_an_error(workspace, args):
    read, write = os.pipe()
    os.close(read)  # 没有人读：第一次写就是 EPIPE，与 | head -1 读完一行就走一样，但不靠运气
    try:
        run = subprocess_poet(*args, env={"POET_WORKSPACE": str(workspace)}, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def test_head_one_through_the_launcher(workspace):
    script = f'"{ROOT}/poet" progress | head -1; echo "rc=${{PIPESTATUS[0]}}"'
    run = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        env={**os.environ, "POET_WORKSPACE": str(workspace)},
    )
    lines = run.stdout.splitlines()
    assert lines[0].strip() == "学习进度" and lines[-1] == "rc=0", run.stdout
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr


# ---------- 80 列终端里的训练进度条 ----------


def test_train_progress_line_fits_80_columns(tmp_path):
    run = subprocess_poet(
        "train",
        "--preset",
        "tiny",
        "--steps",
        "2",
        "--out",
        str(tmp_path / "run"),
        env={"COLUMNS": "80", "FORCE_COLOR": "1"},
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert run.returncode == 0, run.stderr
    lines = [line for line in re.split(r"[\r\n]", ANSI.sub("", run.stdout)) if line.startswith("训练 ")]
    assert lines, run.stdout  # FORCE_COLOR 让 rich 像在终端里一样画进度条
    assert all(cell_len(line) <= 80 for line in lines), lines
    assert all(re.match(r"训练 \d/2 已用 \d:\d\d:\d\d 剩 ", line) for line in lines), lines
    assert any(line.startswith("训练 2/2 已用 0:00:") and "损失 " in line for line in lines), lines


# ---------- 输出管道关掉了，命令照样做完 ----------


def nobody_reads(monkeypatch) -> None:
    """标准输出换成一个没有人读的管道（与 ./poet … | head -1 读完一行就走一样，但不靠运气）。
    在测试函数里调用：pytest 在每个阶段开始时会换回它自己的 sys.stdout。"""
    read, write = os.pipe()
    os.close(read)
    monkeypatch.setattr(sys, "stdout", open(write, "w", encoding="utf-8"))
    monkeypatch.setattr(display.console, "quiet", False)  # 测试之后把 stop_printing 设的 quiet 复原


def test_check_records_progress_when_nobody_reads(monkeypatch, tmp_path):
    nobody_reads(monkeypatch)
    monkeypatch.setattr(catalogue, "workspace", lambda: tmp_path)
    BY_NUMBER[9].exercise_file.parent.mkdir(parents=True)
    BY_NUMBER[9].exercise_file.write_text("import torch\n\n\n" + GOOD, encoding="utf-8")
    assert main(["check", "9"]) == 0
    assert display.reader_gone()
    assert lesson_progress.load_progress()["09"]["status"] == "passed"


def test_grade_writes_its_reports_when_nobody_reads(monkeypatch, tmp_path):
    nobody_reads(monkeypatch)
    (tmp_path / "class" / "甲").mkdir(parents=True)
    (tmp_path / "class" / "甲" / "09.py").write_text("import torch\n\n\n" + GOOD, encoding="utf-8")
    csv_path, json_path = tmp_path / "g.csv", tmp_path / "g.json"
    assert (
        main(["grade", str(tmp_path / "class"), "--jobs", "1", "--csv", str(csv_path), "--json", str(json_path)]) == 0
    )
    assert (
        csv_path.read_bytes()
        .decode("utf-8-sig")
        .startswith(
            f"学习者,第09课 {BY_NUMBER[9].title},第09课原因,通过数\r\n甲,通过,,1\r\n"
            "交了的通过率,1/1 100%,,\r\n全班通过率,1/1 100%,,\r\n\r\n随机用例的种子,"
        )
    )
    assert json.loads(json_path.read_text(encoding="utf-8"))["verdicts"][0]["kind"] == "passed"


def test_train_saves_its_checkpoint_when_nobody_reads(monkeypatch, tmp_path):
    nobody_reads(monkeypatch)
    assert main(["train", "--preset", "tiny", "--steps", "2", "--out", str(tmp_path / "run")]) == 0
    assert read_checkpoint(tmp_path / "run" / "checkpoint.pt", TOK)["step"] == 2


def test_json_to_a_closed_pipe_is_not_an_error(monkeypatch):
    nobody_reads(monkeypatch)
    assert main(["write", "月", "--seed", "1", "--json"]) == 0 and display.reader_gone()
