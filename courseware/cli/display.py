"""poet 的全部屏幕输出（rich）：课程地图、进度表、判定、提示、环境检查、诗、评估表、自检表、成绩表。

命令模块只决定“说什么”，怎么排版都在这里（参考答案与代码对照在 code_view）；批改、自检的逻辑本身不画表。
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from poetry_gpt import labs
from poetry_gpt.common import ROOT
from poetry_gpt.labs import fold_atoms, fold_lines

__all__ = [
    "console",
    "error_console",
    "tolerant_output",
    "stop_printing",
    "reader_gone",
    "busy",
    "stages",
    "write_json",
    "write_text",
    "course_map",
    "progress_table",
    "lesson_banner",
    "verdict",
    "hint",
    "checklist",
    "poem",
    "marks",
    "error",
    "notice",
]

console = Console(highlight=False)
"""poet 的标准输出。"""
error_console = Console(stderr=True, highlight=False, soft_wrap=True)
"""错误消息写到标准错误（不在 80 列处折断，里面的命令可以整行复制）：
``./poet write 月 --json > 诗.json`` 出错时，消息不会混进文件里。"""


# ---------- 各种终端 ----------


def tolerant_output() -> None:
    """让输出在任何终端上都写得出来（每个命令开头调用一次）。

    GBK 或 ASCII 终端（``LANG=zh_CN.GBK``、``PYTHONIOENCODING=ascii``）写不出的字（✓、表情、ASCII 里的汉字）
    写成 ?，而不是抛 UnicodeEncodeError；rich 看到编码不是 UTF-* 时自己已把表格边框换成 ASCII。
    标准错误本来就把写不出的字写成 \\u… 转义，不用改。
    """
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")


def stop_printing() -> None:
    """输出管道被关掉（``./poet grade 班级 | head -1``）时 rich 默认以 1 退出，命令要做的事就半途而废了。
    poet 把它当作读的人看够了：只是不再输出（标准输出接到 /dev/null），命令照样做完——批改照样写出报告、
    训练照样存档、检查照样记进度——再以它本来的退出码结束。"""
    console.quiet = True
    try:
        fileno = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # 没有文件描述符的流（测试里换上的 StringIO）：quiet 已够
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fileno)  # 之后直接写 sys.stdout 的（--json）与退出时的 flush 都写进 /dev/null
    os.close(devnull)


def reader_gone() -> bool:
    """读输出的人是否已经走了（管道被关掉）：只为看的工作（如 ./poet lesson 的实验）就不必再做。"""
    return console.quiet


console.on_broken_pipe = stop_printing  # rich 文档说的扩展点（Console.on_broken_pipe），这里只改这两个实例
labs.console.on_broken_pipe = stop_printing  # ./poet train 的进度条经实验的 console 输出：管道关掉时也照样训练完


def _can_write(text: str) -> bool:
    try:
        text.encode(console.encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def marks() -> tuple[str, str]:
    """(通过, 不通过) 的记号：UTF-8 终端用 ✓ ✗；GBK 终端（中文 Windows 的命令行）写不出它们，用 √ ×；ASCII 终端用 v x。"""
    return next(pair for pair in (("✓", "✗"), ("√", "×"), ("v", "x")) if _can_write("".join(pair)))


def busy(text: str):
    """一段等待时转着的提示（console.status）。写不出盲文点的终端用 | / - \\ 转。"""
    return console.status(text, spinner="dots" if _can_write("⠋") else "line")


@contextmanager
def stages(units: dict[str, str]):
    """几个阶段的进度条（./poet eval）：每个阶段一行——做完几份 / 一共几份、已用的时间、估计还剩多久。
    units 是阶段 → 份的单位（“批”“首”）。给出回调 report(阶段, 做完几份, 一共几份)，第一次报到的阶段添一行。
    输出不是终端时（管道、写进文件）什么也不显示；结束后进度条留在屏幕上：看得到每一段用了多久。"""
    from rich.progress import BarColumn, Progress, TextColumn

    from poetry_gpt.progress_bar import count_and_time

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=20),
        *count_and_time("{task.fields[unit]}  已用"),
        console=console,
        disable=not console.is_terminal,
    )
    rows: dict[str, int] = {}

    def report(stage: str, done: int, total: int) -> None:
        if stage not in rows:
            rows[stage] = progress.add_task(stage, total=total, unit=units.get(stage, ""))
        progress.update(rows[stage], completed=done, total=total)

    with progress:
        yield report


def write_json(data) -> None:
    """把 JSON 写到标准输出（--json）。汉字原样写出；终端的编码（GBK、ASCII）写不出的字写成 \\u 转义（只在字符串里，
    JSON 仍然完整、读回来一样，不会被写成 ?）：GBK 终端上汉字照样是汉字，ASCII 终端上才全部转义。"""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"

    def escaped(m: re.Match) -> str:
        try:
            m.group().encode(encoding)
        except (UnicodeEncodeError, LookupError):
            return json.dumps(m.group())[1:-1]  # \uXXXX，编码之外的平面写成一对代理
        return m.group()

    write_text(re.sub(r"[^\x00-\x7f]", escaped, json.dumps(data, ensure_ascii=False, indent=1)) + "\n")


def write_text(text: str) -> None:
    """把一段现成的文字原样写到标准输出（--json、--markdown）；读的人已经走了时什么也不写。"""
    if reader_gone():
        return
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        stop_printing()


def shown(path: Path) -> str:
    """路径在仓库里时写相对路径，更短更好认。"""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


# ---------- 在窄终端里折行：按 UAX #14，不拆开词（poetry_gpt.labs.fold_lines） ----------


class Prose:
    """一段要在窄终端里折行的文字（rich 的可渲染对象，放进 Panel、Table 都行）。

    rich 自己折行时把没有空格的一长串（中文里夹着的 first_line）当一个词硬折，标识符会被拆成两行；
    这里只在 fold_atoms 的边界折（见 fold_lines）。text 可以是带样式的 Text。"""

    def __init__(self, text: str | Text, phrase: bool = False, style: str = ""):
        self.text = text if isinstance(text, Text) else Text(text, style=style)
        self.phrase = phrase

    def __rich_measure__(self, console, options) -> Measurement:
        plain = self.text.plain
        widest = max(
            (cell_len(line[a:b].rstrip(" ")) for line in plain.split("\n") for a, b in fold_atoms(line, self.phrase)),
            default=1,
        )
        longest = max((cell_len(line) for line in plain.split("\n")), default=1)
        return Measurement(min(widest, options.max_width), min(longest, options.max_width))

    def __rich_console__(self, console, options):
        lines = fold_lines(self.text.plain, max(1, options.max_width), self.phrase)
        out = Text("\n").join(self.text[a:b] for a, b in lines)
        out.no_wrap, out.overflow = True, "ignore"
        yield out


# ---------- 各个命令的输出 ----------


def error(message: str) -> None:
    """一条给学习者看的错误（标准错误，红色，不折断命令行）。"""
    error_console.print(Text(message, style="red"))


def notice(message: str) -> None:
    """一条黄色的提醒（如：没有沙箱，检查退回按进程隔离）。"""
    console.print(Text(message, style="yellow"))


def remark(message: str) -> None:
    """一句顺带的说明（标准错误，灰字）：不混进 --json 的输出。"""
    error_console.print(Text(message, style="dim"))


def check_limit(seconds: float) -> None:
    """./poet check 在判定之前只说一行：这次检查的时间上限（实际的秒数）。"""
    console.print(Text(f"这次检查最多用 {seconds:g} 秒 CPU 时间（--timeout 可改）。", style="dim"))


def course_map(sections: dict[str, str], lessons: Sequence, status: dict[str, str | None], next_step=None) -> None:
    """./poet：按节列出每一课与学习者的状态（status：课号 → passed / started / None）；最后说下一步做什么
    （next_step：progress.next_lesson 的 (课, 状态)，None 时全部通过了）。"""
    console.print(
        Panel.fit(f"[bold]一字一诗[/bold]：从零搭一个会写绝句的小 GPT（共 {len(lessons)} 课）", border_style="cyan")
    )
    for key, name in sections.items():
        t = Table(title=f"学习路径/{key} · {name}", title_justify="left", show_header=False, box=None, pad_edge=False)
        t.add_column(width=4)
        t.add_column()
        t.add_column()
        for lesson in (l for l in lessons if l.section == key):
            if not lesson.available:
                mark = "[dim]即将推出[/dim]"
            else:
                state = status.get(lesson.code)
                mark = {"passed": f"[green]{marks()[0]} 已通过[/green]", "started": "[yellow]… 已开始[/yellow]"}.get(
                    state, "未开始"
                )
            title = lesson.title if lesson.available else f"[dim]{lesson.title}[/dim]"
            t.add_row(lesson.code, title, mark)
        console.print(t)
    if next_step and next_step[1] == "started":
        lesson = next_step[0]
        console.print(
            f"\n下一步：接着做第 {lesson.code} 课《{lesson.title}》的练习，[bold]./poet check {lesson.number}[/bold]"
            f"（卡住了：./poet hint {lesson.number}）"
        )
    elif next_step:
        lesson = next_step[0]
        console.print(f"\n下一步：[bold]./poet lesson {lesson.number}[/bold]（第 {lesson.code} 课《{lesson.title}》）")
    else:
        console.print("\n已写好的课你都通过了。")


def progress_table(rows: Iterable[tuple[str, str, str, str, str]], summary: str) -> None:
    """./poet progress：每行 (课号, 标题, 状态, 最近一次检查, 时间)，再加一行总结。"""
    t = Table(title="学习进度", title_justify="left")
    for h in ("课", "标题", "状态", "最近检查", "时间"):
        t.add_column(h, no_wrap=h != "标题")
    for code, title, state, last, when in rows:
        # 进度文件里的文字只当文字：“[red]”这样的方括号不是 rich 的标记；课名只在标点处折行；
        # 时间省掉年与秒（“12-01 20:40”），80 列里放得下每个课名
        t.add_row(code, Prose(title, phrase=True), Text(state), Text(last), Text(when[5:16]))
    console.print(t)
    console.print(summary)


SPIN_AFTER = 2.0
"""实验这么多秒没有新的输出，就在下一行转一个提示，写出已经用了多久。"""


def spinner_wanted() -> bool:
    """只在真的终端上转：输出被管道接走、写进文件时一个字也不多（别人靠这样录下实验的输出）。
    Windows 的管道不能 select，也不转。"""
    return console.is_terminal and sys.stdout.isatty() and os.name == "posix" and not reader_gone()


def relay_with_spinner(fd: int, started: float) -> None:
    """把实验子进程写进管道 fd 的字节原样转给终端，直到管道关闭；停下 SPIN_AFTER 秒以上、且停在一行的开头时，
    在那一行转“实验运行中 … 已用 N 秒”，下一段输出来时先擦掉它。started 是实验开始的 time.monotonic()。"""
    import select
    import time

    frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" if _can_write("⠋") else "|/-\\"
    out = sys.stdout.buffer
    last, at_line_start, shown, tick = started, True, False, 0
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], 0.1)
            now = time.monotonic()
            if ready:
                data = os.read(fd, 65536)
                if not data:
                    break
                if shown:
                    out.write(b"\r\x1b[2K")
                    shown = False
                out.write(data)
                out.flush()
                last, at_line_start = now, data.endswith(b"\n")
            elif at_line_start and now - last >= SPIN_AFTER:
                tick += 1
                line = f"{frames[tick % len(frames)]} 实验运行中 … 已用 {now - started:.0f} 秒"
                out.write(f"\r\x1b[2K\x1b[2m{line}\x1b[0m".encode(console.encoding, "replace"))
                out.flush()
                shown = True
    finally:
        if shown:
            out.write(b"\r\x1b[2K")
            out.flush()


def lesson_banner(lesson) -> None:
    text = Text()
    text.append(lesson.title, style="bold")
    text.append("\n" + lesson.goal)
    console.print(
        Panel(
            Prose(text, phrase=True),
            title=f"第 {lesson.code} 课 · {lesson.section_title}",
            title_align="left",
            border_style="cyan",
        )
    )


def verdict(lesson, v) -> None:
    """./poet check 的判定：通过为绿框，其余为红框。v 是 grading.Verdict。"""
    console.print(
        Panel(
            Prose(v.message),
            title=f"第 {lesson.code} 课：{v.label}（{v.seconds:.1f} 秒）",
            title_align="left",
            border_style="green" if v.passed else "red",
        )
    )


def hint(lesson, more: bool = False) -> None:
    """./poet hint：先只给点拨；more 时再给完整的做法（课表里没有 more 的课，点拨就是全部）。"""
    console.print(Panel(Prose(lesson.hint), title=f"第 {lesson.code} 课提示", title_align="left"))
    if more and lesson.more:
        console.print(Panel(Prose(lesson.more), title=f"第 {lesson.code} 课：完整的做法", title_align="left"))
    elif more:
        console.print("这一课的提示就是上面这些。")
    elif lesson.more:
        console.print(f"还想不出来：./poet hint {lesson.number} --more 看完整的做法。")


def checklist(
    title: str, rows: Sequence[tuple[str, bool, str]], ok_line: str, bad_line: str, advisory: Sequence[str] = ()
) -> None:
    """./poet doctor 这类清单：每行 (项目, 是否正常, 详情)。advisory 里的项目不正常时只打 ✗、不算“有问题”。"""
    t = Table(title=title, title_justify="left")
    t.add_column("项目")
    t.add_column("")
    t.add_column("详情", overflow="fold")  # 窄终端里折行，不截掉后面怎样装的提示
    yes, no = marks()
    for name, good, detail in rows:
        t.add_row(name, f"[green]{yes}[/green]" if good else f"[red]{no}[/red]", detail)
    console.print(t)
    console.print(ok_line if all(good for name, good, _ in rows if name not in advisory) else f"[red]{bad_line}[/red]")


def poem(p, line_ends: str, first: bool, score: str = "likelihood") -> None:
    """./poet write 的一首诗：一句一行，下面一行灰字写体裁、种子、从几份草稿里挑的（按哪种分数，``--score``）与用时。"""
    if not first:
        console.print()
    console.print(Text("".join(ch + "\n" if ch in line_ends else ch for ch in p.text).rstrip()))
    kind = {5: "五言", 7: "七言"}[p.form] + ("藏头" if p.acrostic else "")
    # 种子是留下的那份草稿自己的：--drafts 1 --seed 它，单独写出的就是这一首
    if not p.drafts:
        kept = ""
    elif score == "likelihood":
        kept = f" · {len(p.drafts)} 份草稿里模型最有把握的一份（每字平均对数概率 {p.log_prob:.2f}）"
    else:  # coherence：对数概率加上后两句与前两句的点互信息，留下的不一定是模型最有把握的
        kept = f" · {len(p.drafts)} 份草稿里 {score} 分数最高的一份（分数 {p.score:.2f}，每字平均对数概率 {p.log_prob:.2f}）"
    # 用时只算生成这首诗：不含启动 Python、载入 torch 与模型（命令的总时间比它长好几秒）
    console.print(
        Prose(
            f"{kind} · 种子 {p.seed}{kept} · 生成用时 {p.seconds:.2f} 秒（不含启动 Python、载入 torch 与模型）",
            phrase=True,
            style="dim",
        )
    )
