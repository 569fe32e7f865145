"""学习者的命令：课程地图、上课、开始练习、检查、提示、参考答案、对照、进度、环境检查。"""

from __future__ import annotations

import ast
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from poetry_gpt.common import DEFAULT_DATA, ROOT

from .. import catalogue
from ..catalogue import CATALOGUE, EXERCISE, SECTIONS, LessonNumberError, parse_lesson
from ..defaults import CHECK_MEMORY_MB, CHECK_TIMEOUT_S, EXPERIMENT_THREADS, WALL_EXTRA_S, WALL_FACTOR
from ..lesson_progress import STATUS_LABEL, load_progress, next_lesson, record_progress, status_of
from ..messages import not_utf8, safe_text, syntax_message
from . import code_view, display, typeset
from .display import console, shown
from .parser import CliError, seconds

LESSON_HELP = "课号：9、09 或 lesson-09"

RUN_EXPERIMENT = """\
import os, runpy, signal, sys
if hasattr(signal, "SIGPIPE"):  # 输出被 head 提前关掉时安静结束，不留 BrokenPipeError 的错误栈
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C：实验当场停下、不印错误栈（./poet 自己说“已中断。”）
sys.stdout.reconfigure(errors="replace")  # GBK、ASCII 终端写不出的字写成 ?
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(sys.argv[0])
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""./poet lesson 运行实验的方式：和 python lessons/NN/experiment.py 一样，只多了上面三条对终端的照顾。"""


def lesson_arg(text: str):
    try:
        return parse_lesson(text)
    except LessonNumberError as e:
        raise CliError(str(e).replace(text, safe_text(text, 40, one_line=True, keep_end=True), 1)) from None


def exercise_path(lesson, given: str | None) -> Path:
    path = Path(given) if given else lesson.exercise_file
    if given and path.is_dir():
        raise CliError(
            f"{safe_text(given, 120, one_line=True, keep_end=True)} 是一个文件夹，请给出练习文件本身，例如 lessons/{lesson.code}/{EXERCISE}"
        )
    if not path.is_file():
        if given:
            raise CliError(f"找不到文件：{safe_text(given, 120, one_line=True, keep_end=True)}")
        raise CliError(f"还没有练习文件 {shown(path)}。先运行 ./poet start {lesson.number}。")
    return path


def solve_source(path: Path) -> str:
    """从一个练习文件里取出 solve 函数的源代码。"""
    try:
        text = path.read_text(encoding="utf-8-sig")  # 与 check、grade 一样接受 BOM
        tree = ast.parse(text)
    except UnicodeDecodeError as e:
        why = not_utf8(e.object.count(b"\n", 0, e.start) + 1)
    except (SyntaxError, ValueError) as e:  # 有空字符时，旧一些的 Python 抛 ValueError
        why = (f"第 {e.lineno} 行：" if getattr(e, "lineno", None) else "") + syntax_message(getattr(e, "msg", str(e)))
    else:
        why = None
    if why:
        raise CliError(f"{safe_text(str(path), 120, one_line=True, keep_end=True)} 无法解析：{why}")
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "solve":
            return ast.get_source_segment(text, node) + "\n"
    raise CliError(f"{safe_text(str(path), 120, one_line=True, keep_end=True)} 里没有 solve 函数")


def cmd_map(args) -> int:
    progress = load_progress()
    display.course_map(
        SECTIONS, CATALOGUE, {l.code: status_of(l, progress) for l in CATALOGUE}, next_lesson(CATALOGUE, progress)
    )
    return 0


def cmd_progress(args) -> int:
    progress = load_progress()
    counts = {"passed": 0, "started": 0, None: 0}
    rows = []
    for lesson in CATALOGUE:
        entry = progress.get(lesson.code, {})
        status = entry.get("status") if lesson.available else None
        if lesson.available:
            counts[status] = counts.get(status, 0) + 1
        label = STATUS_LABEL.get(status, "未开始") if lesson.available else "即将推出"
        rows.append((lesson.code, lesson.title, label, entry.get("last_verdict", ""), entry.get("updated", "")))
    display.progress_table(
        rows,
        f"已通过 {counts['passed']} 课，已开始 {counts['started']} 课，未开始 {counts[None]} 课"
        f"（已写好 {sum(l.available for l in CATALOGUE)} / {len(CATALOGUE)} 课）。",
    )
    return 0


def cmd_lesson(args) -> int:
    if args.answers and not args.read:
        raise CliError("--answers 只在 --read（在终端里读课文）时有用：./poet lesson N --read --answers")
    lesson = lesson_arg(args.lesson)
    if args.read:
        typeset.lesson_text((lesson.folder / "README.md").read_text(encoding="utf-8"), lesson.number, args.answers)
        return 0
    display.lesson_banner(lesson)
    console.print(f"[dim]运行 lessons/{lesson.code}/experiment.py …[/dim]")
    console.file.flush()
    if display.reader_gone():  # 输出管道已被关掉：实验只是给人看的，读的人走了就不必再跑
        return 0
    started = time.monotonic()
    command = [sys.executable, "-c", RUN_EXPERIMENT, str(lesson.folder / "experiment.py")]
    env = experiment_env()
    if display.spinner_wanted():
        code = run_with_spinner(command, started, env)
    else:  # 管道、文件：和直接运行实验一模一样
        code = subprocess.call(command, cwd=ROOT, env=env)
    if hasattr(signal, "SIGPIPE") and code == -signal.SIGPIPE:  # 读的人（head）已经走了
        raise BrokenPipeError
    if code != 0:
        raise CliError(f"实验没有正常结束（退出码 {code}）。", code=1)
    console.print(
        f"[dim]实验用时 {time.monotonic() - started:.1f} 秒（机器空闲时的参考用时见 README.md 的“用时”）。\n"
        f"读全文：./poet lesson {lesson.number} --read；做练习：./poet start {lesson.number}[/dim]"
    )
    return 0


def experiment_env() -> dict[str, str]:
    """实验的环境变量：计算线程与录下记录时一样（defaults.EXPERIMENT_THREADS，印出的数与课文一致；忙的笔记本上
    也快得多）。学习者自己设了 OMP_NUM_THREADS 时听他的。"""
    return {"OMP_NUM_THREADS": str(EXPERIMENT_THREADS), **os.environ}


def run_with_spinner(command: list[str], started: float, env: dict[str, str]) -> int:
    """在终端上运行实验：它的输出经一根管道原样转给终端（颜色与宽度照旧：FORCE_COLOR、COLUMNS 告诉它
    这是一个多宽的终端），它停下来算的时候转一个带用时的提示（display.relay_with_spinner）。返回退出码。"""
    env = {**env, "COLUMNS": str(console.width), "LINES": str(console.height)}
    if "NO_COLOR" not in env:
        env["FORCE_COLOR"] = "1"
    read, write = os.pipe()
    try:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=write, env=env)
    finally:
        os.close(write)
    try:
        display.relay_with_spinner(read, started)
    finally:
        os.close(read)
        code = proc.wait()
    return code


def cmd_start(args) -> int:
    lesson = lesson_arg(args.lesson)
    target = lesson.exercise_file
    rel = shown(target)
    if target.exists():
        if not args.force:
            raise CliError(
                f"{rel} 已经存在，为了不覆盖你的代码，什么也没改。\n要重新开始，请加 --force（会先把旧文件备份）。",
                code=1,
            )
        backup = catalogue.backup_path(lambda stamp: target.with_name(f"my_exercise.{stamp}.py"))
        shutil.copy2(target, backup)
        console.print(f"旧文件已备份为 {shown(backup)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(lesson.folder / "starter.py", target)
    record_progress(lesson, "started", restart=args.force)  # 重新开始：以前的“已通过”不再算数
    console.print(f"已创建 [bold]{rel}[/bold]。编辑其中的 solve 函数，然后运行：\n  ./poet check {lesson.number}")
    return 0


def cmd_check(args) -> int:
    from ..grading import Limits, check_file  # 导入 torch 较慢，只在需要时导入

    lesson = lesson_arg(args.lesson)
    path = exercise_path(lesson, args.file)
    limits = Limits(timeout=args.timeout)
    display.check_limit(limits.timeout)  # 沙箱怎样关住代码是老师关心的：在 ./poet doctor 与 ./poet grade 里说
    with display.busy("正在检查 …"):
        verdict = check_file(lesson, path, limits)
    display.verdict(lesson, verdict)
    if not args.file or Path(args.file).resolve() == lesson.exercise_file.resolve():
        record_progress(lesson, "passed" if verdict.passed else "started", verdict.label)
    else:  # 进度只记你自己的练习文件：别的文件（同学的、老师发的）检查完不算你做过
        display.remark(f"没有记进度：只有 {shown(lesson.exercise_file)} 的检查结果记进 ./poet progress。")
    if verdict.kind in ("not_implemented", "wrong"):
        console.print(f"提示：./poet hint {lesson.number}")
    return 0 if verdict.passed else 1


def cmd_hint(args) -> int:
    display.hint(lesson_arg(args.lesson), more=args.more)
    return 0


def cmd_solution(args) -> int:
    lesson = lesson_arg(args.lesson)
    code_view.solution(lesson, solve_source(lesson.folder / "solution.py"))
    return 0


def cmd_diff(args) -> int:
    lesson = lesson_arg(args.lesson)
    code_view.solve_diff(
        lesson, solve_source(exercise_path(lesson, args.file)), solve_source(lesson.folder / "solution.py")
    )
    return 0


def system_row() -> tuple[str, bool, str]:
    """doctor 的“系统”一行：Linux（连同 Windows 的 WSL）、macOS 还是 Windows，以及在那里课程怎样学
    （README.md 的“Windows 与 macOS”）。只有直接在 Windows 上运行算“有问题”：要在 WSL 2 里学。"""
    import platform

    name, machine = platform.system(), platform.machine()
    if name == "Linux":
        release = platform.release().lower()
        if "microsoft" in release:  # WSL 的内核：WSL 2 是 …-microsoft-standard-WSL2
            wsl = "WSL 2" if "wsl2" in release else "WSL 1（课程按 WSL 2 写：wsl --set-version 换成 WSL 2）"
            return "系统", True, f"Linux，在 Windows 的 {wsl} 里（{machine}）"
        return "系统", True, f"Linux（{machine}）"
    if name == "Darwin":
        return (
            "系统",
            True,
            f"macOS {platform.mac_ver()[0]}（{machine}）：课程都能学；没有 bubblewrap，检查练习时按进程隔离",
        )
    if name == "Windows":
        return "系统", False, "Windows：请在 WSL 2 的 Ubuntu 里学（README.md 的“Windows 与 macOS”）"
    return "系统", True, f"{name}（{machine}）"


def cmd_doctor(args) -> int:
    import platform

    rows = [system_row(), ("Python", sys.version_info >= (3, 10), platform.python_version())]
    try:
        import torch

        rows.append(("torch", True, f"{torch.__version__}，计算线程 {torch.get_num_threads()}"))
    except ImportError:
        rows.append(("torch", False, "没有安装：运行 bash .venv-setup.sh"))
    from poetry_gpt.common import DataFileError
    from poetry_gpt.data import Tokenizer, load_poems

    try:
        rows.append(("data/vocab.json", True, f"汉字表 {len(Tokenizer.load())} 个"))
        rows.append(("data/poems.jsonl", True, f"{len(load_poems())} 首诗"))
    except DataFileError as e:
        rows.append(("数据文件", False, str(e)))
    from ..grading.confine import available_kind, describe
    from ..grading.sandbox import identity, unavailable_reason

    why = unavailable_reason()  # 真的试跑一次 bwrap：装了却用不了（容器里不许建命名空间）也是 ✗
    rows.append(
        (
            "沙箱 bubblewrap",
            why is None,
            "可用：检查练习时关在沙箱里"
            if why is None
            else f"{why}：检查练习时退回按进程隔离，学习者的代码能读写你能碰到的文件",
        )
    )
    rows.append(("学习者代码的身份", True, identity() if why is None else f"你自己（uid {os.geteuid()}）：没有沙箱"))
    rows.append(
        ("内存与进程数上限", True, describe(available_kind(), CHECK_MEMORY_MB) + f"（--memory 默认 {CHECK_MEMORY_MB}）")
    )
    shipped = (
        "tones.json",
        "rhymes.json",
        "t2s.json",
        "stats.json",
        "regulated.txt.gz",
        "model.pt",
        "SOURCE.md",
        "MODEL.md",
    )
    for name in shipped:
        path = DEFAULT_DATA / name
        rows.append((f"data/{name}", path.is_file(), "在" if path.is_file() else "缺失"))
    # 没有沙箱（macOS、精简容器）课程照样能学：只提醒，不算“有问题”；老师批改全班前应当看到这一行
    ready = "一切就绪。" if why is None else "一切就绪（只是检查练习时没有沙箱，见上表）。"
    display.checklist("环境检查", rows, ready, "有问题，请按上表修复后再试。", advisory=("沙箱 bubblewrap",))
    return 0 if all(good for name, good, _ in rows if name != "沙箱 bubblewrap") else 1


def register(sub) -> None:
    """把学习者的命令加到 poet 的子命令里。"""
    p = sub.add_parser("lesson", help="显示一课的标题与目标并运行实验")
    p.add_argument("lesson", metavar="课号", help=LESSON_HELP)
    p.add_argument("--read", action="store_true", help="在终端里读整篇课文")
    p.add_argument("--answers", action="store_true", help="--read 时连小练习的答案一起显示（默认折起来）")
    p.set_defaults(func=cmd_lesson)

    p = sub.add_parser("start", help=f"把 starter.py 复制为 {EXERCISE}（不会覆盖已有文件）")
    p.add_argument("lesson", metavar="课号", help=LESSON_HELP)
    p.add_argument("--force", action="store_true", help="已有练习文件时先备份再重新开始")
    p.set_defaults(func=cmd_start)

    p = sub.add_parser("check", help="检查你的练习：可见检查 + 与参考答案的差分检查")
    p.add_argument("lesson", metavar="课号", help=LESSON_HELP)
    p.add_argument("file", nargs="?", metavar="文件", help=f"要检查的文件（默认 lessons/NN/{EXERCISE}）")
    p.add_argument(
        "--timeout",
        type=seconds,
        default=CHECK_TIMEOUT_S,
        metavar="秒数",
        help=f"学习者代码的 CPU 时间上限（秒，默认 {CHECK_TIMEOUT_S:g}；墙上时间另有 {WALL_FACTOR} 倍加 {WALL_EXTRA_S} 秒的后备上限）",
    )
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("hint", help="这一课练习的提示：先是点拨，--more 再给完整的做法")
    p.add_argument("lesson", metavar="课号", help=LESSON_HELP)
    p.add_argument("--more", action="store_true", help="点拨之后再显示完整的做法")
    p.set_defaults(func=cmd_hint)

    p = sub.add_parser("solution", help="参考答案里的 solve")
    p.add_argument("lesson", metavar="课号", help=LESSON_HELP)
    p.set_defaults(func=cmd_solution)

    p = sub.add_parser("diff", help="把你的 solve 与参考答案并排比较")
    p.add_argument("lesson", metavar="课号", help=LESSON_HELP)
    p.add_argument("file", nargs="?", metavar="文件", help=f"你的文件（默认 lessons/NN/{EXERCISE}）")
    p.set_defaults(func=cmd_diff)

    sub.add_parser("progress", help="全部课程的进度表").set_defaults(func=cmd_progress)
    sub.add_parser("doctor", help="检查 Python、torch 与数据文件").set_defaults(func=cmd_doctor)
