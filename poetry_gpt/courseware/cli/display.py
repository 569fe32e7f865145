"""poet 的全部屏幕输出（rich）：课程地图、进度表、判定、提示、代码对照、环境检查、诗、评估表、自检表。

命令模块只决定“说什么”，怎么排版都在这里；批改、自检的逻辑本身不画表。
"""
from __future__ import annotations

import difflib
from typing import Iterable, Sequence

from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ...labs import console, error_console

__all__ = ["console", "error_console", "course_map", "progress_table", "lesson_banner", "verdict", "hint",
           "solution", "solve_diff", "checklist", "poem", "eval_table", "verify_table", "error", "notice"]


def error(message: str) -> None:
    """一条给学习者看的错误（标准错误，红色，不折断命令行）。"""
    error_console.print(Text(message, style="red"))


def notice(message: str) -> None:
    """一条黄色的提醒（如：没有沙箱，检查退回按进程隔离）。"""
    console.print(Text(message, style="yellow"))


def course_map(sections: dict[str, str], lessons: Sequence, status: dict[str, str | None]) -> None:
    """./poet：按节列出每一课与学习者的状态（status：课号 → passed / started / None）；最后说下一步做什么。"""
    console.print(Panel.fit(f"[bold]一字一诗[/bold]：从零搭一个会写绝句的小 GPT（共 {len(lessons)} 课）",
                            border_style="cyan"))
    next_lesson = None
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
                mark = {"passed": "[green]✓ 已通过[/green]", "started": "[yellow]… 已开始[/yellow]"}.get(state, "未开始")
                if state != "passed" and next_lesson is None:
                    next_lesson = lesson
            title = lesson.title if lesson.available else f"[dim]{lesson.title}[/dim]"
            t.add_row(lesson.code, title, mark)
        console.print(t)
    if next_lesson:
        console.print(f"\n下一步：[bold]./poet lesson {next_lesson.number}[/bold]（第 {next_lesson.code} 课《{next_lesson.title}》）")
    else:
        console.print("\n已写好的课你都通过了。")


def progress_table(rows: Iterable[tuple[str, str, str, str, str]], summary: str) -> None:
    """./poet progress：每行 (课号, 标题, 状态, 最近一次检查, 时间)，再加一行总结。"""
    t = Table(title="学习进度", title_justify="left")
    for h in ("课", "标题", "状态", "最近一次检查", "时间"):
        t.add_column(h, overflow="fold")
    for row in rows:
        t.add_row(*row)
    console.print(t)
    console.print(summary)


def lesson_banner(lesson) -> None:
    console.print(Panel(f"[bold]{lesson.title}[/bold]\n{lesson.goal}",
                        title=f"第 {lesson.code} 课 · 学习路径/{lesson.section_title}", title_align="left",
                        border_style="cyan"))


def verdict(lesson, v) -> None:
    """./poet check 的判定：通过为绿框，其余为红框。v 是 grading.Verdict。"""
    console.print(Panel(Text(v.message, overflow="fold"), title=f"第 {lesson.code} 课：{v.label}（{v.seconds:.1f} 秒）",
                        title_align="left", border_style="green" if v.passed else "red"))


def hint(lesson) -> None:
    console.print(Panel(Text(lesson.hint, overflow="fold"), title=f"第 {lesson.code} 课提示", title_align="left"))


def solution(lesson, source: str) -> None:
    from rich.syntax import Syntax

    console.print(f"第 {lesson.code} 课参考答案（lessons/{lesson.code}/solution.py 中的 solve）：")
    console.print(Syntax(source, "python", line_numbers=True))


def solve_diff(lesson, mine: str, ref: str) -> None:
    """学习者的 solve 与参考答案并排，再给一份统一格式的差异。"""
    from rich.syntax import Syntax

    if mine == ref:
        console.print("你的 solve 与参考答案一字不差。")
        return
    t = Table(title=f"第 {lesson.code} 课：你的 solve 与参考答案", title_justify="left", expand=True)
    t.add_column("你的代码")
    t.add_column("参考答案")
    t.add_row(Syntax(mine, "python"), Syntax(ref, "python"))
    console.print(t)
    diff = "".join(difflib.unified_diff(mine.splitlines(True), ref.splitlines(True), "你的代码", "参考答案"))
    console.print(Syntax(diff, "diff"))


def checklist(title: str, rows: Sequence[tuple[str, bool, str]], ok_line: str, bad_line: str) -> None:
    """./poet doctor 这类清单：每行 (项目, 是否正常, 详情)。"""
    t = Table(title=title, title_justify="left")
    for h in ("项目", "", "详情"):
        t.add_column(h)
    for name, good, detail in rows:
        t.add_row(name, "[green]✓[/green]" if good else "[red]✗[/red]", detail)
    console.print(t)
    console.print(ok_line if all(good for _, good, _ in rows) else f"[red]{bad_line}[/red]")


def poem(p, line_ends: str, first: bool) -> None:
    """./poet write 的一首诗：一句一行，下面一行灰字写体裁、种子与用时。"""
    if not first:
        console.print()
    console.print(Text("".join(ch + "\n" if ch in line_ends else ch for ch in p.text).rstrip()))
    kind = {5: "五言", 7: "七言"}[p.form] + ("藏头" if p.acrostic else "")
    console.print(f"[dim]{kind} · 种子 {p.seed} · {p.seconds:.2f} 秒[/dim]")


def eval_table(result: dict, source: str) -> None:
    """./poet eval 的指标表（result 见 metrics.evaluate_model），再印三首示例。"""
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    t = Table(title=f"模型评估：{source}", title_justify="left")
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
    t.add_row("每首用时", f"{result['seconds_per_poem']:.3f} 秒", "受约束，一个线程，含 KV 缓存")
    console.print(t)
    from ...metrics import reader_table

    header, rows = reader_table(result)
    rules = result["rules"]
    how = (f"押韵{'开' if rules['rhyme'] else '关'}、平仄 {rules['tones']}、重复控制{'开' if rules['repetition'] else '关'}")
    t = Table(title=f"读者看得到的（{how}；“人”是 val 里同样首数的诗）", title_justify="left")
    for i, h in enumerate(header):
        t.add_column(h, overflow="fold", justify="left" if i == 0 else "right")
    for row in rows:
        t.add_row(*row)
    console.print(t)
    for text in result["examples"]:
        console.print(Text(text))


def verify_table(reports, strays: Sequence[str], checks: Sequence[str], titles: dict[str, str],
                 seconds: float) -> None:
    """./poet verify 的结果：每课一行、每项检查一格，再逐条写出失败的原因。reports 见 verify.LessonReport。"""
    table = Table(title="课程总检查", title_justify="left")
    for h in ("课", *(titles[c] for c in checks), "用时"):
        table.add_column(h)
    for r in reports:
        cells = [("" if c not in r.problems else "[green]✓[/green]" if r.problems[c] is None else "[red]✗[/red]")
                 for c in checks]
        table.add_row(r.lesson.code, *cells, "未变" if r.cached else f"{r.seconds:.1f} 秒")
    for name in strays:
        table.add_row(escape(name), "[red]✗ 不在课表里[/red]", *[""] * (len(checks) - 1), "")
    console.print(table)
    failures = [(r.lesson.code, titles[c], p) for r in reports for c, p in r.problems.items() if p]
    for code, what, problem in failures:
        console.print(f"[red]第 {code} 课 {what}：[/red]{escape(problem)}")
    for name in strays:
        console.print(f"[red]lessons/{escape(name)} 不在课表 lessons/manifest.toml 里。[/red]")
    ok = not failures and not strays
    console.print(f"{'全部通过' if ok else '有问题'}：{len(reports)} 课，用时 {seconds:.1f} 秒"
                  f"（{sum(r.cached for r in reports)} 课文件未变，沿用上次的通过结果）。")
