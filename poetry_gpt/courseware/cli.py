"""poet 命令：课程地图、上课、练习检查、进度与环境检查。

每个子命令是一个 cmd_* 函数，返回退出码；出错时打印中文说明，退出码非零，不打印 Python 错误栈。
"""
from __future__ import annotations

import argparse
import ast
import difflib
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from . import catalogue
from ..common import DEFAULT_DATA, ROOT
from .catalogue import CATALOGUE, EXERCISE, SECTIONS, LessonNumberError, parse_lesson
from ..labs import console, error_console


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
    if given and path.is_dir():
        raise CliError(f"{given} 是一个文件夹，请给出练习文件本身，例如 lessons/{lesson.code}/{EXERCISE}")
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
        text = path.read_text(encoding="utf-8-sig")  # 与 check、grade 一样接受 BOM
        tree = ast.parse(text)
    except (UnicodeDecodeError, SyntaxError, ValueError) as e:
        raise CliError(f"{path} 无法解析：{e}") from None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "solve":
            return ast.get_source_segment(text, node) + "\n"
    raise CliError(f"{path} 里没有 solve 函数")


# ---------- 课程地图与进度 ----------

def cmd_map(args) -> int:
    progress = catalogue.load_progress()
    console.print(Panel.fit(f"[bold]一字一诗[/bold]：从零搭一个会写绝句的小 GPT（共 {len(CATALOGUE)} 课）", border_style="cyan"))
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
                status = catalogue.status_of(lesson, progress)
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
    progress = catalogue.load_progress()
    t = Table(title="学习进度", title_justify="left")
    for h in ("课", "标题", "状态", "最近一次检查", "时间"):
        t.add_column(h, overflow="fold")
    counts = {"passed": 0, "started": 0, None: 0}
    for lesson in CATALOGUE:
        entry = progress.get(lesson.code, {})
        status = entry.get("status") if lesson.available else None
        if lesson.available:
            counts[status] = counts.get(status, 0) + 1
        label = catalogue.STATUS_LABEL.get(status, "未开始") if lesson.available else "即将推出"
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
        from rich.markdown import Markdown  # 只在读课文时导入：./poet write 要启动得快
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
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = target.with_name(f"my_exercise.{stamp}.py")
        n = 1
        while backup.exists():  # 同一秒里再来一次也不能盖掉上一个备份
            n += 1
            backup = target.with_name(f"my_exercise.{stamp}-{n}.py")
        shutil.copy2(target, backup)
        console.print(f"旧文件已备份为 {shown(backup)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(lesson.folder / "starter.py", target)
    catalogue.record_progress(lesson, "started")
    console.print(f"已创建 [bold]{rel}[/bold]。编辑其中的 solve 函数，然后运行：\n"
                  f"  ./poet check {lesson.number}")
    return 0


def cmd_check(args) -> int:
    from .grading import Limits, check_file  # 导入 torch 较慢，只在需要时导入

    lesson = lesson_arg(args.lesson)
    path = exercise_path(lesson, args.file)
    if args.timeout <= 0:
        raise CliError("--timeout 必须是正数（秒）")
    from .sandbox import fallback_notice
    if (notice := fallback_notice()):
        console.print(Text(notice, style="yellow"))
    with console.status("正在检查 …"):
        verdict = check_file(lesson, path, Limits(timeout=args.timeout))
    style = "green" if verdict.passed else "red"
    console.print(Panel(Text(verdict.message, overflow="fold"), title=f"第 {lesson.code} 课：{verdict.label}（{verdict.seconds:.1f} 秒）",
                        title_align="left", border_style=style))
    if not args.file or Path(args.file).resolve() == lesson.exercise_file.resolve():
        catalogue.record_progress(lesson, "passed" if verdict.passed else "started", verdict.label)
    if verdict.kind == "not_implemented":
        console.print(f"提示：./poet hint {lesson.number}")
    return 0 if verdict.passed else 1


def cmd_hint(args) -> int:
    lesson = lesson_arg(args.lesson)
    console.print(Panel(Text(lesson.hint, overflow="fold"), title=f"第 {lesson.code} 课提示", title_align="left"))
    return 0


def cmd_solution(args) -> int:
    lesson = lesson_arg(args.lesson)
    console.print(f"第 {lesson.code} 课参考答案（lessons/{lesson.code}/solution.py 中的 solve）：")
    from rich.syntax import Syntax

    console.print(Syntax(solve_source(lesson.folder / "solution.py"), "python", line_numbers=True))
    return 0


def cmd_diff(args) -> int:
    from rich.syntax import Syntax

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
    from ..common import DataFileError
    from ..data import Tokenizer, load_poems
    try:
        item("data/vocab.json", True, f"汉字表 {len(Tokenizer.load())} 个")
        item("data/poems.jsonl", True, f"{len(load_poems())} 首诗")
    except DataFileError as e:
        item("数据文件", False, str(e))
    from .sandbox import unavailable_reason
    why = unavailable_reason()  # 没有沙箱不算故障：检查退回按进程隔离
    item("沙箱 bubblewrap", True, "可用：检查练习时关在沙箱里" if why is None else f"{why}：检查练习时退回按进程隔离")
    for name in ("tones.json", "t2s.json", "model.pt", "SOURCE.md", "MODEL.md"):
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

    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs 至少为 1（不写时用 CPU 核数）。")
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


# ---------- 训练、写诗、评估 ----------

def cmd_train(args) -> int:
    from ..checkpoint import CHECKPOINT_NAME, CheckpointError
    from ..train import PRESETS, train  # 导入 torch 较慢，只在需要时导入

    config = PRESETS[args.preset]
    if args.steps is not None and args.steps < 1:
        raise CliError("--steps 至少为 1")
    if args.precision is not None:
        config = replace(config, precision=args.precision)
    if args.minutes is not None and not (math.isfinite(args.minutes) and args.minutes > 0):
        raise CliError("--minutes 必须是正数（分钟）")
    if args.resume and args.force:
        raise CliError("--resume（接着训练）和 --force（从头重来）只能选一个")
    out = Path(args.out or f"runs/{args.preset}")
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out} 已经是一个文件，不是文件夹；请换一个存档目录")
    if (out / CHECKPOINT_NAME).exists() and not args.resume and not args.force:
        raise CliError(f"已有存档 {out / CHECKPOINT_NAME}：要接着训练请加 --resume，要从头重来请加 --force")
    try:
        run = train(config, out, resume=args.resume, steps=args.steps, minutes=args.minutes, device=args.device)
    except (CheckpointError, ValueError) as e:
        raise CliError(str(e)) from None
    vals = [e["val"] for e in run.log if "val" in e]
    state = "已中断，" if run.interrupted else ""
    console.print(f"{state}训练到第 {run.step} 步，存档在 {run.checkpoint}"
                  + (f"；最近一次验证损失 {vals[-1]:.3f} 奈特/字" if vals else ""))
    if run.step < run.total:
        console.print(f"接着训练：./poet train --preset {args.preset} --out {out} --resume", soft_wrap=True)
    console.print(f"用它写诗：./poet write 月 --checkpoint {run.checkpoint}", soft_wrap=True)
    if args.preset == "tiny":
        console.print("tiny 只为几十秒内看到损失下降，写出的诗还不成样子；随课程发布的模型用 "
                      "./poet train --preset base 训练（见 data/MODEL.md）", soft_wrap=True)
    return 130 if run.interrupted else 0


MAX_POEMS = 100
"""./poet write -n 的上限。"""


def cmd_write(args) -> int:
    import json

    import torch

    from ..data import LINE_ENDS, default_tokenizer
    from ..generate import GenerationError, iter_poems
    from ..checkpoint import SHIPPED_MODEL, CheckpointError, load_model

    # 一次只写一首、矩阵很小，一个线程就够快；多个线程在机器忙时互相等待，反而慢得多
    torch.set_num_threads(1)
    if not args.keywords and not args.acrostic:
        raise CliError("请给至少一个汉字，例如 ./poet write 月；藏头诗：./poet write --acrostic 春夏秋冬")
    if args.n > MAX_POEMS:
        raise CliError(f"-n 最多 {MAX_POEMS} 首（一次写太多要等很久）；需要更多请分几次写，换不同的 --seed")
    tokenizer = default_tokenizer()
    try:
        model, _ = load_model(args.checkpoint or SHIPPED_MODEL, tokenizer)
        poems = iter_poems(model, tokenizer, args.keywords or "", n=args.n, form=args.form,
                           acrostic=args.acrostic or "", temperature=args.temperature, top_k=args.top_k,
                           top_p=args.top_p, seed=args.seed, constrained=not args.free)
    except (GenerationError, CheckpointError) as e:
        raise CliError(str(e)) from None
    if args.json:
        sys.stdout.write(json.dumps([p.to_dict() for p in poems], ensure_ascii=False, indent=1) + "\n")
        return 0
    written = 0
    for poem in poems:  # 写好一首印一首：Ctrl-C 时已经写好的都在屏幕上
        if written:
            console.print()
        written += 1
        console.print(Text("".join(ch + "\n" if ch in LINE_ENDS else ch for ch in poem.text).rstrip()))
        kind = {5: "五言", 7: "七言"}[poem.form] + ("藏头" if poem.acrostic else "")
        console.print(f"[dim]{kind} · 种子 {poem.seed} · {poem.seconds:.2f} 秒[/dim]")
    if written < args.n:
        console.print(f"\n只写出了 {written} 首不同的诗：采样太确定（温度很低，或 top-k、top-p 很小），"
                      "再写也是重复的。要更多不同的诗，请调高 --temperature 或 --top-p", soft_wrap=True)
    return 0


def cmd_eval(args) -> int:
    import json

    from ..data import default_tokenizer
    from ..checkpoint import SHIPPED_MODEL, CheckpointError, load_model
    from ..metrics import evaluate_model

    if args.prompts < 1:
        raise CliError("--prompts 至少为 1")
    if args.val_poems is not None and args.val_poems < 1:
        raise CliError("--val-poems 至少为 1")
    tokenizer = default_tokenizer()
    try:
        model, _ = load_model(args.checkpoint or SHIPPED_MODEL, tokenizer)
    except CheckpointError as e:
        raise CliError(str(e)) from None
    with console.status("正在评估（验证集交叉熵、二元基线、每个提示写两首诗）…"):
        result = evaluate_model(model, tokenizer, n_prompts=args.prompts, val_poems=args.val_poems)
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
        return 0
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    t = Table(title=f"模型评估：{args.checkpoint or SHIPPED_MODEL.relative_to(ROOT)}", title_justify="left")
    t.add_column("指标")
    t.add_column("数值")
    t.add_column("说明", overflow="fold")  # 窄终端里折行，不截掉“（第 07 课）”这类尾巴
    t.add_row("验证交叉熵", f"{result['val_cross_entropy']:.3f}", f"奈特/字，val 里的 {result['val_poems']} 首，只算正文与 <eos>")
    t.add_row("二元基线", f"{result['bigram_cross_entropy']:.3f}", "奈特/字，同样这些诗（第 07 课）")
    t.add_row("模型 ÷ 基线", f"{result['ratio_to_bigram']:.3f}", "越小越好")
    t.add_row("格式合格率（受约束）", pct(result["format_rate"]), f"{result['prompts']} 个固定提示")
    t.add_row("格式合格率（不受约束）", pct(result["format_rate_free"]), "--free：模型自己写")
    t.add_row("关键词命中率（受约束）", pct(result["keyword_hit_rate"]), "给定的字都出现")
    t.add_row("关键词命中率（不受约束）", pct(result["keyword_hit_rate_free"]), "")
    t.add_row("抄袭率", pct(result["copy_rate"]), "与训练集某句一字不差的句子占比")
    t.add_row("distinct-2", f"{result['distinct_2']:.3f}", "不同的两字组合占比，越高越不重复")
    t.add_row("每首用时", f"{result['seconds_per_poem']:.3f} 秒", "受约束，含 KV 缓存")
    console.print(t)
    for text in result["examples"]:
        console.print(Text(text))
    return 0


# ---------- 参数解析 ----------

def cmd_site(args) -> int:
    from .site import SiteError, build, serve

    try:
        result = build(Path(args.out) if args.out else None)
    except SiteError as e:
        raise CliError(str(e), code=1) from None
    console.print(f"已生成 {len(result.lessons)} 课的网页（用时 {result.seconds:.1f} 秒）：{shown(result.out / 'index.html')}"
                  "，双击即可离线打开。")
    if args.serve:
        try:
            serve(result.out, args.port)
        except OSError as e:
            raise CliError(f"不能在 127.0.0.1:{args.port} 上预览：{e.strerror or e}。换一个端口试试，例如 --port 8001。") from None
        except KeyboardInterrupt:
            console.print("\n预览已停止。")
    return 0


def positive_int(text: str) -> int:
    """argparse 的 type：正整数。Raises: argparse.ArgumentTypeError（中文说明）。"""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} 不是整数") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"要是正整数，收到 {value}")
    return value


# argparse 的提示语经由 gettext 取得；换成中文，学习者写错参数时看到的也是中文
ARGPARSE_CHINESE = {
    "usage: ": "用法：",
    "%(prog)s: error: %(message)s\n": "%(prog)s：命令写得不对：%(message)s\n",
    "positional arguments": "参数",
    "options": "选项",
    "show this help message and exit": "显示帮助",
    "argument %(argument_name)s: %(message)s": "%(argument_name)s：%(message)s",
    "invalid choice: %(value)r (choose from %(choices)s)": "不能是 %(value)r，只能从 %(choices)s 中选",
    "invalid %(type)s value: %(value)r": "%(value)r 不是有效的数",  # 带类型的参数都是 int 或 float
    "the following arguments are required: %s": "缺少参数：%s",
    "unrecognized arguments: %s": "不认识这些参数：%s",
    "expected one argument": "后面要跟一个值",
    "expected at most one argument": "后面最多跟一个值",
    "expected at least one argument": "后面至少跟一个值",
    "ambiguous option: %(option)s could match %(matches)s": "%(option)s 有歧义，可能是 %(matches)s",
    "not allowed with argument %s": "不能与 %s 同时使用",
}
argparse._ = lambda text: ARGPARSE_CHINESE.get(text, text)


class ChineseParser(argparse.ArgumentParser):
    """参数写错时用中文说明并以 2 退出。"""

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
    p.add_argument("--timeout", type=float, default=20.0, help="整次检查的时间上限（秒，默认 20）")
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
    p.add_argument("--timeout", type=float, default=20.0, help="每份练习的检查时间上限（秒，默认 20）")
    p.add_argument("--memory", type=int, default=2048, help="每个检查进程的内存上限（MiB，默认 2048）")
    p.add_argument("--jobs", type=int, help="同时批改几份（默认：CPU 核数）")
    p.add_argument("--csv", help="把成绩表写成 CSV（UTF-8 带 BOM，Excel 可直接打开）")
    p.add_argument("--json", help="把每个判定（含消息与用时）写成 JSON")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("verify", help="维护者用：检查每一课的实验、参考答案、起始代码与课文小节")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="同时跑几项（默认：CPU 核数）")
    p.add_argument("--timeout", type=float, default=60.0, help="实验与每次检查的时间上限（秒，默认 60）")
    p.add_argument("--fresh", action="store_true", help="不沿用上次的通过结果，全部重跑")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("train", help="训练模型：进度条、定期验证、原子存档、断点续训")
    p.add_argument("--preset", choices=("tiny", "base"), default="tiny", help="tiny：几十秒的小模型；base：随课程发布的模型")
    p.add_argument("--steps", type=int, help="总步数（默认按预设）")
    p.add_argument("--minutes", type=float, help="训练这么多分钟后存档并停下，之后可 --resume")
    p.add_argument("--out", help="存档目录（默认 runs/<预设名>）")
    p.add_argument("--resume", action="store_true", help="从 --out 里的存档接着训练")
    p.add_argument("--force", action="store_true", help="--out 里已有存档时也从头训练（覆盖它）")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="在哪里训练（默认 auto）")
    p.add_argument("--precision", choices=("auto", "fp32", "bf16"),
                   help="矩阵乘法的精度（默认按预设：tiny 用 fp32，base 用 auto——bf16 更快的设备上用 bf16）")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("write", help="写一首绝句：./poet write 月")
    p.add_argument("keywords", nargs="?", help="要写进诗里的字（1–4 个，繁体也可以）")
    p.add_argument("--form", type=int, choices=(5, 7), help="5：五言；7：七言（默认由模型选）")
    p.add_argument("--acrostic", help="藏头诗：4 个字，分别作每句的第一个字")
    p.add_argument("-n", type=int, default=1, help="写几首不同的诗（默认 1，最多 100）")
    p.add_argument("--temperature", type=float, default=0.8, help="温度（默认 0.8；0 表示每步取最可能的字）")
    p.add_argument("--top-k", type=int, default=40, help="只在最可能的 k 个字里抽（默认 40；0 表示不限）")
    p.add_argument("--top-p", type=float, default=0.95, help="只在累计概率达到 p 的字里抽（默认 0.95）")
    p.add_argument("--seed", type=int, help="随机种子：同一个种子写出同一首诗")
    p.add_argument("--checkpoint", help="用哪个存档，或 ./poet train 的存档目录（默认随课程发布的 data/model.pt）")
    p.add_argument("--free", action="store_true", help="关掉格式约束，看模型自己会写成什么样")
    p.add_argument("--json", action="store_true", help="以 JSON 输出")
    p.set_defaults(func=cmd_write)

    p = sub.add_parser("eval", help="评估一个模型：交叉熵与二元基线、格式、关键词、抄袭率、distinct-2、速度")
    p.add_argument("--checkpoint", help="用哪个存档（默认 data/model.pt）")
    p.add_argument("--prompts", type=int, default=200, help="用几个固定提示写诗（默认 200）")
    p.add_argument("--val-poems", type=int, help="从 val 里等距取多少首算交叉熵与二元基线（默认全部）")
    p.add_argument("--json", action="store_true", help="以 JSON 输出")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("site", help="把写好的课生成静态网页（site/index.html，离线可看）")
    p.add_argument("--out", help="生成到哪个文件夹（默认仓库里的 site/）")
    p.add_argument("--serve", action="store_true", help="生成后在 127.0.0.1 上预览，Ctrl+C 停止")
    p.add_argument("--port", type=positive_int, default=8000, help="预览用的端口（默认 8000）")
    p.set_defaults(func=cmd_site)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args) if getattr(args, "func", None) else cmd_map(args)
    except CliError as e:
        error_console.print(Text(str(e), style="red"))
        return e.code
    except catalogue.ProgressError as e:
        error_console.print(Text(str(e), style="red"))
        return 2
    except KeyboardInterrupt:
        console.print("\n已中断。")
        return 130
    except BrokenPipeError:
        # 输出被 head 之类提前关掉时安静退出
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def run() -> None:
    """命令行入口：运行命令后直接结束进程。

    输出都已写完、文件都已原子写好；载入过 torch 的解释器正常退出时还要花 0.3–0.5 秒清理模块，
    ``./poet write 月`` 的总时间里这一截最可省，所以用 os._exit 跳过它。
    """
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(code)


if __name__ == "__main__":
    run()
