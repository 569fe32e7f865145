"""poet 命令：课程地图、上课、练习检查、进度与环境检查。

每个子命令是一个 cmd_* 函数，返回退出码；出错时打印中文说明，退出码非零，不打印 Python 错误栈。
"""
from __future__ import annotations

import argparse
import ast
import difflib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from rich.markdown import Markdown
from rich.markup import escape
from rich.text import Text
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table

from . import course
from .common import DEFAULT_DATA, ROOT
from .course import CATALOGUE, EXERCISE, SECTIONS, LessonNumberError, parse_lesson
from .labs import console


class CliError(Exception):
    """给学习者看的错误：打印 message，以 code 退出。"""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def lesson_arg(text: str):
    try:
        return parse_lesson(text)
    except LessonNumberError as e:
        raise CliError(str(e)) from None


def exercise_path(lesson, given: str | None) -> Path:
    path = Path(given) if given else lesson.exercise_file
    if not path.is_file():
        if given:
            raise CliError(f"找不到文件：{given}")
        raise CliError(f"还没有练习文件 {shown(path)}。先运行 ./poet start {lesson.number}。")
    return path


def shown(path: Path) -> str:
    """路径在仓库里时写相对路径，更短更好认。"""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def solve_source(path: Path) -> str:
    """从一个练习文件里取出 solve 函数的源代码。"""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (UnicodeDecodeError, SyntaxError) as e:
        raise CliError(f"{path} 无法解析：{e}") from None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "solve":
            return ast.get_source_segment(text, node) + "\n"
    raise CliError(f"{path} 里没有 solve 函数")


# ---------- 课程地图与进度 ----------

def cmd_map(args) -> int:
    progress = course.load_progress()
    console.print(Panel.fit("[bold]一字一诗[/bold]：从零搭一个会写绝句的小 GPT（共 26 课）", border_style="cyan"))
    next_lesson = None
    for key, name in SECTIONS.items():
        t = Table(title=f"学习路径/{key} · {name}", title_justify="left", show_header=False, box=None, pad_edge=False)
        t.add_column(width=4)
        t.add_column()
        t.add_column()
        for lesson in (l for l in CATALOGUE if l.section == key):
            if not lesson.available:
                mark = "[dim]即将推出[/dim]"
            else:
                status = course.status_of(lesson, progress)
                mark = {"passed": "[green]✓ 已通过[/green]", "started": "[yellow]… 已开始[/yellow]"}.get(status, "未开始")
                if status != "passed" and next_lesson is None:
                    next_lesson = lesson
            title = lesson.title if lesson.available else f"[dim]{lesson.title}[/dim]"
            t.add_row(lesson.code, title, mark)
        console.print(t)
    if next_lesson:
        console.print(f"\n下一步：[bold]./poet lesson {next_lesson.number}[/bold]（第 {next_lesson.code} 课《{next_lesson.title}》）")
    else:
        console.print("\n已写好的课你都通过了。")
    return 0


def cmd_progress(args) -> int:
    progress = course.load_progress()
    t = Table(title="学习进度", title_justify="left")
    for h in ("课", "标题", "状态", "最近一次检查", "时间"):
        t.add_column(h, overflow="fold")
    counts = {"passed": 0, "started": 0, None: 0}
    for lesson in CATALOGUE:
        entry = progress.get(lesson.code, {})
        status = entry.get("status") if lesson.available else None
        if lesson.available:
            counts[status] = counts.get(status, 0) + 1
        label = course.STATUS_LABEL.get(status, "未开始") if lesson.available else "即将推出"
        t.add_row(lesson.code, lesson.title, label,
                  entry.get("last_verdict", ""), entry.get("updated", ""))
    console.print(t)
    console.print(f"已通过 {counts['passed']} 课，已开始 {counts['started']} 课，未开始 {counts[None]} 课"
                  f"（已写好 {sum(l.available for l in CATALOGUE)} / {len(CATALOGUE)} 课）。")
    return 0


# ---------- 上课 ----------

def cmd_lesson(args) -> int:
    lesson = lesson_arg(args.lesson)
    if args.read:
        text = (lesson.folder / "README.md").read_text(encoding="utf-8")
        console.print(Markdown(text))
        return 0
    console.print(Panel(f"[bold]{lesson.title}[/bold]\n{lesson.goal}",
                        title=f"第 {lesson.code} 课 · 学习路径/{lesson.section_title}", title_align="left",
                        border_style="cyan"))
    console.print(f"[dim]运行 lessons/{lesson.code}/experiment.py …[/dim]")
    console.file.flush()
    started = time.monotonic()
    code = subprocess.call([sys.executable, str(lesson.folder / "experiment.py")], cwd=ROOT)
    if code != 0:
        raise CliError(f"实验没有正常结束（退出码 {code}）。", code=1)
    console.print(f"[dim]实验用时 {time.monotonic() - started:.1f} 秒。读全文：./poet lesson {lesson.number} --read；"
                  f"做练习：./poet start {lesson.number}[/dim]")
    return 0


def cmd_start(args) -> int:
    lesson = lesson_arg(args.lesson)
    target = lesson.exercise_file
    rel = shown(target)
    if target.exists():
        if not args.force:
            raise CliError(f"{rel} 已经存在，为了不覆盖你的代码，什么也没改。\n"
                           f"要重新开始，请加 --force（会先把旧文件备份）。", code=1)
        backup = target.with_name(f"my_exercise.{time.strftime('%Y%m%d-%H%M%S')}.py")
        shutil.copy2(target, backup)
        console.print(f"旧文件已备份为 {shown(backup)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(lesson.folder / "starter.py", target)
    course.record_progress(lesson, "started")
    console.print(f"已创建 [bold]{rel}[/bold]。编辑其中的 solve 函数，然后运行：\n"
                  f"  ./poet check {lesson.number}")
    return 0


def cmd_check(args) -> int:
    from .grading import Limits, check_file  # 导入 torch 较慢，只在需要时导入

    lesson = lesson_arg(args.lesson)
    path = exercise_path(lesson, args.file)
    if args.timeout <= 0:
        raise CliError("--timeout 必须是正数（秒）")
    with console.status("正在检查 …"):
        verdict = check_file(lesson, path, Limits(timeout=args.timeout))
    style = "green" if verdict.passed else "red"
    console.print(Panel(Text(verdict.message, overflow="fold"), title=f"第 {lesson.code} 课：{verdict.label}（{verdict.seconds:.1f} 秒）",
                        title_align="left", border_style=style))
    if not args.file or Path(args.file).resolve() == lesson.exercise_file.resolve():
        course.record_progress(lesson, "passed" if verdict.passed else "started", verdict.label)
    if verdict.kind == "not_implemented":
        console.print(f"提示：./poet hint {lesson.number}")
    return 0 if verdict.passed else 1


def cmd_hint(args) -> int:
    from .grading import lesson_check

    lesson = lesson_arg(args.lesson)
    console.print(Panel(Text(lesson_check(lesson).HINT, overflow="fold"), title=f"第 {lesson.code} 课提示", title_align="left"))
    return 0


def cmd_solution(args) -> int:
    lesson = lesson_arg(args.lesson)
    console.print(f"第 {lesson.code} 课参考答案（lessons/{lesson.code}/solution.py 中的 solve）：")
    console.print(Syntax(solve_source(lesson.folder / "solution.py"), "python", line_numbers=True))
    return 0


def cmd_diff(args) -> int:
    lesson = lesson_arg(args.lesson)
    mine = solve_source(exercise_path(lesson, args.file))
    ref = solve_source(lesson.folder / "solution.py")
    if mine == ref:
        console.print("你的 solve 与参考答案一字不差。")
        return 0
    t = Table(title=f"第 {lesson.code} 课：你的 solve 与参考答案", title_justify="left", expand=True)
    t.add_column("你的代码")
    t.add_column("参考答案")
    t.add_row(Syntax(mine, "python"), Syntax(ref, "python"))
    console.print(t)
    diff = "".join(difflib.unified_diff(mine.splitlines(True), ref.splitlines(True), "你的代码", "参考答案"))
    console.print(Syntax(diff, "diff"))
    return 0


# ---------- 环境 ----------

def cmd_doctor(args) -> int:
    import platform

    rows, ok = [], True

    def item(name, good, detail):
        nonlocal ok
        ok &= good
        rows.append((name, "[green]✓[/green]" if good else "[red]✗[/red]", detail))

    item("Python", sys.version_info >= (3, 10), platform.python_version())
    try:
        import torch
        item("torch", True, f"{torch.__version__}，计算线程 {torch.get_num_threads()}")
    except ImportError:
        item("torch", False, "没有安装：运行 bash .venv-setup.sh")
    from .common import DataFileError
    from .data import Tokenizer, load_poems
    try:
        item("data/vocab.json", True, f"汉字表 {len(Tokenizer.load())} 个")
        item("data/poems.jsonl", True, f"{len(load_poems())} 首诗")
    except DataFileError as e:
        item("数据文件", False, str(e))
    for name in ("tones.json", "t2s.json", "SOURCE.md"):
        path = DEFAULT_DATA / name
        item(f"data/{name}", path.is_file(), "在" if path.is_file() else "缺失")
    t = Table(title="环境检查", title_justify="left")
    for h in ("项目", "", "详情"):
        t.add_column(h)
    for r in rows:
        t.add_row(*r)
    console.print(t)
    console.print("一切就绪。" if ok else "[red]有问题，请按上表修复后再试。[/red]")
    return 0 if ok else 1


# ---------- 老师与维护者 ----------

def cmd_grade(args) -> int:
    from .classroom import ClassroomError, grade_class
    from .grading import Limits

    jobs = args.jobs or os.cpu_count() or 1
    limits = Limits(timeout=args.timeout, memory_mb=args.memory, threads=1 if jobs > 1 else 2)
    try:
        return grade_class(args.class_dir, args.lessons, limits, jobs, args.csv, args.json)
    except ClassroomError as e:
        raise CliError(str(e)) from None


def cmd_verify(args) -> int:
    from .verify import verify_command

    if args.timeout <= 0 or args.jobs < 1:
        raise CliError("--timeout 要大于 0 秒，--jobs 至少为 1。")
    return verify_command(args.jobs, args.timeout, args.fresh)


# ---------- 参数解析 ----------

class ChineseParser(argparse.ArgumentParser):
    """参数写错时用中文说明并以 2 退出。"""

    def __init__(self, *a, **kw):
        super().__init__(*a, add_help=False, **kw)
        self._positionals.title = "参数"
        self._optionals.title = "选项"
        self.add_argument("-h", "--help", action="help", help="显示帮助")

    def format_usage(self):
        return super().format_usage().replace("usage:", "用法：")

    def format_help(self):
        return super().format_help().replace("usage:", "用法：")

    def error(self, message):
        raise CliError(f"命令写得不对：{message}\n{self.format_usage().strip()}\n查看帮助：./poet --help")


def build_parser() -> ChineseParser:
    parser = ChineseParser(prog="poet", description="一字一诗：从零搭一个会写绝句的小 GPT。不带参数时显示课程地图。")
    sub = parser.add_subparsers(dest="command", title="子命令", metavar="命令", parser_class=ChineseParser)
    lesson_help = "课号：9、09 或 lesson-09"

    p = sub.add_parser("lesson", help="显示一课的标题与目标并运行实验")
    p.add_argument("lesson", help=lesson_help)
    p.add_argument("--read", action="store_true", help="在终端里读整篇课文")
    p.set_defaults(func=cmd_lesson)

    p = sub.add_parser("start", help=f"把 starter.py 复制为 {EXERCISE}（不会覆盖已有文件）")
    p.add_argument("lesson", help=lesson_help)
    p.add_argument("--force", action="store_true", help="已有练习文件时先备份再重新开始")
    p.set_defaults(func=cmd_start)

    p = sub.add_parser("check", help="检查你的练习：可见检查 + 与参考答案的差分检查")
    p.add_argument("lesson", help=lesson_help)
    p.add_argument("file", nargs="?", help=f"要检查的文件（默认 lessons/NN/{EXERCISE}）")
    p.add_argument("--timeout", type=float, default=20.0, help="每一步检查的时间上限（秒，默认 20）")
    p.set_defaults(func=cmd_check)

    for name, func, text in (("hint", cmd_hint, "这一课练习的提示"), ("solution", cmd_solution, "参考答案里的 solve")):
        p = sub.add_parser(name, help=text)
        p.add_argument("lesson", help=lesson_help)
        p.set_defaults(func=func)

    p = sub.add_parser("diff", help="把你的 solve 与参考答案并排比较")
    p.add_argument("lesson", help=lesson_help)
    p.add_argument("file", nargs="?", help=f"你的文件（默认 lessons/NN/{EXERCISE}）")
    p.set_defaults(func=cmd_diff)

    sub.add_parser("progress", help="全部课程的进度表").set_defaults(func=cmd_progress)
    sub.add_parser("doctor", help="检查 Python、torch 与数据文件").set_defaults(func=cmd_doctor)

    p = sub.add_parser("grade", help="老师用：批改全班每个学习者的每一课，输出成绩表与 CSV/JSON 报告")
    p.add_argument("class_dir", metavar="CLASS", help=f"班级文件夹：每个学习者一个子文件夹，放 NN.py 或 lessons/NN/{EXERCISE}")
    p.add_argument("--lessons", help="只批改这些课，如 8-10,14（默认：班里有人交了的全部课）")
    p.add_argument("--timeout", type=float, default=20.0, help="每份练习每一步检查的时间上限（秒，默认 20）")
    p.add_argument("--memory", type=int, default=2048, help="每个检查进程的内存上限（MiB，默认 2048）")
    p.add_argument("--jobs", type=int, default=0, help="同时批改几份（默认：CPU 核数）")
    p.add_argument("--csv", help="把成绩表写成 CSV（UTF-8 带 BOM，Excel 可直接打开）")
    p.add_argument("--json", help="把每个判定（含消息与用时）写成 JSON")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("verify", help="维护者用：检查每一课的实验、参考答案、起始代码与课文小节")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="同时跑几项（默认：CPU 核数）")
    p.add_argument("--timeout", type=float, default=60.0, help="实验与每一步检查的时间上限（秒，默认 60）")
    p.add_argument("--fresh", action="store_true", help="不沿用上次的通过结果，全部重跑")
    p.set_defaults(func=cmd_verify)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args) if getattr(args, "func", None) else cmd_map(args)
    except CliError as e:
        console.print(Text(str(e), style="red"))
        return e.code
    except KeyboardInterrupt:
        console.print("\n已中断。")
        return 130
    except BrokenPipeError:
        # 输出被 head 之类提前关掉时安静退出
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
