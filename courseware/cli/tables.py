"""poet 的几张大表：./poet eval 的评估表，./poet verify 的总检查与对不上的数，./poet grade 的名单、进度条与成绩表。

记号、折行这些终端上的事与输出用的 console 在 display。
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import contextmanager

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..messages import safe_text
from .display import Prose, console, marks


def eval_table(result: dict, source: str) -> None:
    """./poet eval 的指标表（result 见 evaluation.evaluate_model），再印三首示例。"""
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    t = Table(title=f"模型评估：{source}", title_justify="left")
    t.add_column("指标")
    t.add_column("数值")
    t.add_column("说明", overflow="fold")  # 窄终端里折行，不截掉“（第 07 课）”这类尾巴
    t.add_row(
        "验证交叉熵",
        f"{result['val_cross_entropy']:.3f}",
        f"奈特/字，val 里的 {result['val_poems']} 首，只算正文与 <eos>",
    )
    if "val_cross_entropy_no_keywords" in result:
        t.add_row("验证交叉熵（不给关键词）", f"{result['val_cross_entropy_no_keywords']:.3f}", "奈特/字，条件区空着")
    if "val_cross_entropy_drawn_keyword" in result:  # 12-07 以前的 eval.json 没有这一项
        t.add_row(
            "验证交叉熵（抽一个关键词）",
            f"{result['val_cross_entropy_drawn_keyword']:.3f}",
            "奈特/字，条件区是按 IDF 从诗里抽的一个字",
        )
    t.add_row("二元基线", f"{result['bigram_cross_entropy']:.3f}", "奈特/字，同样这些诗（第 07 课）")
    t.add_row("模型 ÷ 基线", f"{result['ratio_to_bigram']:.3f}", "越小越好")
    t.add_row("格式合格率（受约束）", pct(result["format_rate"]), f"{result['prompts']} 个固定提示")
    t.add_row("格式合格率（不受约束）", pct(result["format_rate_free"]), "--free：模型自己写")
    t.add_row("关键词命中率（受约束）", pct(result["keyword_hit_rate"]), "给定的字都出现")
    t.add_row("关键词命中率（不受约束）", pct(result["keyword_hit_rate_free"]), "")
    t.add_row("抄袭率", pct(result["copy_rate"]), "与训练集某句一字不差的句子占比")
    t.add_row("distinct-2", f"{result['distinct_2']:.3f}", "不同的两字组合占比，越高越不重复")
    if "drafts" in result:  # 旧的 eval.json 没有这几项
        drafts = result["drafts"]
        t.add_row(
            "每首的草稿",
            str(drafts),
            f"留下 {result['score']} 分数最高的一份（第 25 课）" if drafts > 1 else "只写一份",
        )
        t.add_row(
            "每字平均对数概率",
            f"{result['log_prob']:.3f}",
            f"奈特/字，模型自己给受约束的诗；只写一份时 {result['log_prob_single']:.3f}",
        )
        t.add_row("distinct-2（只写一份）", f"{result['distinct_2_single']:.3f}", "同样的提示，每首的第一份草稿")
    t.add_row("每首用时", f"{result['seconds_per_poem']:.3f} 秒", "受约束，连同草稿，一个线程，含 KV 缓存")
    console.print(t)
    _reader_grid(result)
    for text in result["examples"]:
        console.print(Text(text))


def _reader_grid(result: dict) -> None:
    """eval 的“读者看得到的”表（数都来自 reader_table.reader_table，与 --markdown 的表相同），排得在 80 列里也好读：
    列名不带首数（首数是第一行），长列名分两行，没有竖线；“0/1/2/≥3 次”这种一格四个数的拆成四行。"""
    from rich import box
    from rich.cells import cell_len

    from .reader_table import READER_ROWS, reader_table

    header, rows = reader_table(result)
    rules = result["rules"]
    how = f"押韵{'开' if rules['rhyme'] else '关'}、平仄 {rules['tones']}、重复控制{'开' if rules['repetition'] else '关'}"
    t = Table(
        title=f"读者看得到的（{how}；“人”是 val 里同样首数的诗）",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 0, 0, 1),
    )  # 80 列里放得下 28 格的行名
    names, counts = zip(*(re.fullmatch(r"(.+)（(\d+)）", h).groups() for h in header[1:]))
    t.add_column(header[0], overflow="fold")
    for name in names:
        half = len(name) // 2
        t.add_column(name if cell_len(name) <= 8 else f"{name[:half]}\n{name[half:]}", justify="right")
    t.add_row("首数", *counts, end_section=True)
    for (_, label, kind), row in zip(READER_ROWS, rows):
        if kind != "dist":
            t.add_row(*row)
            continue
        before, buckets, after = re.fullmatch(r"(.*?)(\S+/\S+)(.*)", label).groups()  # “给定的字出现 0/1/2/≥3 次”
        split = [cell.rstrip("%").split("/") if cell != "–" else None for cell in row[1:]]
        for i, bucket in enumerate(buckets.split("/")):
            t.add_row(f"{before}{bucket}{after}", *(f"{values[i]}%" if values else "–" for values in split))
    console.print(t)


def verify_table(reports, strays: Sequence[str], checks: Sequence[str], titles: dict[str, str], seconds: float) -> None:
    """./poet verify 的结果：每课一行、每项检查一格，再逐条写出失败的原因。reports 见 verify.LessonReport。"""
    yes, no = marks()
    table = Table(title="课程总检查", title_justify="left")
    for h in ("课", *(titles[c] for c in checks), "用时"):
        table.add_column(h)
    for r in reports:
        cells = [
            ("" if c not in r.problems else f"[green]{yes}[/green]" if r.problems[c] is None else f"[red]{no}[/red]")
            for c in checks
        ]
        table.add_row(r.lesson.code, *cells, "未变" if r.cached else f"{r.seconds:.1f} 秒")
    for name in strays:
        table.add_row(Text(name), f"[red]{no} 不在课表里[/red]", *[""] * (len(checks) - 1), "")
    console.print(table)
    failures = [(r.lesson.code, titles[c], p) for r in reports for c, p in r.problems.items() if p]
    for code, what, problem in failures:
        console.print(Text.assemble((f"第 {code} 课 {what}：", "red"), problem))
    for name in strays:
        console.print(Text(f"lessons/{name} 不在课表 lessons/manifest.toml 里。", style="red"))
    ok = not failures and not strays
    console.print(
        f"{'全部通过' if ok else '有问题'}：{len(reports)} 课，用时 {seconds:.1f} 秒"
        f"（{sum(r.cached for r in reports)} 课文件未变，沿用上次的通过结果）。"
    )


def stale_figures(stale, recorded: bool = False) -> None:
    """./poet verify 之后：课文里对不上的数与代码块，每条一行“文件:行：原因”；--record 时带上候选的新值
    （旧记录里对上的那个数，在新记录里同一个位置上的值），找不到同一处时写“？”与最近的数。
    stale 是 [(figures.Stale 或文字, 候选或 None)]。"""
    if not stale:
        return
    console.print(f"[red]课文里有 {len(stale)} 处与记录下来的输出对不上：[/red]")
    for item, guess in stale:
        line = str(item)
        if guess is not None:
            line = f"{item.path}:{item.line}：{item.figure} → {guess}（候选：旧记录里同一处现在印的数）"
        elif getattr(item, "figure", "") and not isinstance(item, str) and recorded:
            near = f"现在印出的数里最近的是 {item.nearest}" if item.nearest else "来源里没有可比的数"
            line = f"{item.path}:{item.line}：{item.figure} → ？（旧记录里那一行变了样，{near}）"
        console.print(f"  {escape(line)}", soft_wrap=True)


def roster(class_dir: str, found, lessons_text: str | None, exercise: str) -> None:
    """./poet grade 开头：找到的学习者、两种布局各几份、不在 --lessons 里的、忽略的（最多列 20 项，各有原因）与隐藏的文件。
    found 是 classroom.Roster；名字都已转义过（classroom.shown_name），这里再把制表符、换行写成转义。"""
    flat, nested = found.layout_counts()
    names = "：" + "、".join(safe_text(n, one_line=True) for n in found.learners) if found.learners else ""
    console.print(Text(f"班级文件夹 {safe_text(class_dir, one_line=True)}：找到 {len(found.learners)} 名学习者{names}"))
    console.print(Text(f"  练习文件 {flat + nested} 份：NN.py {flat} 份，lessons/NN/{exercise} {nested} 份"))
    if found.untouched:
        listed = "、".join(
            safe_text(f"{learner}/{rel}", one_line=True)
            for (learner, _), (rel, _) in list(found.untouched.items())[:20]
        )
        more = f" 等 {len(found.untouched)} 份" if len(found.untouched) > 20 else ""
        console.print(Text(f"  算作没交 {len(found.untouched)} 份（空文件，或与起始代码一字不差）：{listed}{more}"))
    if found.skipped:
        console.print(Text(f"  不在 --lessons {lessons_text or ''} 范围内、没有批改的文件 {found.skipped} 份"))
    if found.ignored:
        console.print(f"  忽略 {len(found.ignored)} 项：")
        for line in found.ignored[:20]:
            console.print(Text(f"    {safe_text(line, one_line=True)}"))
        if len(found.ignored) > 20:
            console.print(f"    …还有 {len(found.ignored) - 20} 项（全部写在 --json 报告里）")
    if found.hidden:
        console.print(
            f"  另有 {found.hidden} 个隐藏的文件或文件夹（名字以 . 或 __ 开头，如 .DS_Store、__pycache__），没有看"
        )


@contextmanager
def grading_progress(total: int):
    """批改时的进度条；with 里得到 done(submission, verdict)，每批改完一份调用一次（classroom.grade 的 on_done）。"""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        task = bar.add_task("批改中", total=total)

        def done(sub, verdict) -> None:
            bar.update(
                task,
                advance=1,
                description=f"{safe_text(sub.learner, one_line=True)} 第 {sub.lesson.code} 课：{verdict.label}",
            )

        yield done


def grade_table(
    learners: Sequence[str],
    lessons: Sequence,
    results: dict,
    rates: dict[str, tuple[int, int, int]],
    counts: dict[str, int],
    timeout: float,
    missing: str,
    seconds: float,
) -> None:
    """./poet grade 的成绩表：一行一个学习者、一列一课（✓ 或 ✗ 与原因，没交写 missing），最后两行是每课通过率
    （只算交了的人，与把没交的算作没通过的全班）；下面一行是各种判定的份数与用时。
    results：(学习者, 课号) → grading.Verdict；rates：课号 → (通过人数, 交了的人数, 全班人数)。"""
    from ..grading.gradebook import RATE_ROWS
    from ..grading.gradebook import rate_text as rate

    yes, no = marks()

    def cell(verdict) -> str:
        if verdict is None:
            return f"[dim]{missing}[/dim]"
        return f"[green]{yes}[/green]" if verdict.passed else f"[red]{no} {escape(verdict.label)}[/red]"

    table = Table(title="成绩表", title_justify="left")
    table.add_column("学习者", overflow="fold")
    for lesson in lessons:
        table.add_column(lesson.code, overflow="fold")
    table.add_column("通过", justify="right")
    for name in learners:
        cells = [results.get((name, l.code)) for l in lessons]
        table.add_row(
            Text(safe_text(name, one_line=True)), *map(cell, cells), str(sum(bool(v and v.passed) for v in cells))
        )
    table.add_section()
    table.add_row(RATE_ROWS[0], *(rate(k, s) for k, s, _ in rates.values()), "")
    table.add_row(RATE_ROWS[1], *(rate(k, n) for k, _, n in rates.values()), "")
    console.print(table)
    # 图例写在表下面、不当 caption：caption 会被折到表那么宽
    console.print(
        f"[dim]{yes} 通过，{no} 未通过及原因，{missing} 没交（空文件、原样未改的起始代码也算没交）；"
        f"每份 CPU 时间上限 {timeout:g} 秒。\n"
        f"交了的通过率：只算交了这一课的人；全班通过率：没交的算作没通过。[/dim]"
    )
    summary = "，".join(f"{label} {n}" for label, n in counts.items()) or "没有交上来的练习"
    console.print(f"判定统计：{summary}。用时 {seconds:.1f} 秒。")


def grade_details(learners: Sequence[str], lessons: Sequence, results: dict) -> None:
    """./poet grade --details：成绩表之后逐份列出没通过的判定与原因（消息的第一行，与 CSV 的“原因”列相同）。"""
    from ..grading.gradebook import reason

    rows = [
        (name, lesson, v)
        for name in learners
        for lesson in lessons
        if (v := results.get((name, lesson.code))) and not v.passed
    ]
    if not rows:
        console.print("没有没通过的练习。")
        return
    table = Table(title="没通过的原因", title_justify="left")
    for h in ("学习者", "课", "判定", "原因"):
        table.add_column(h, overflow="fold")
    for name, lesson, v in rows:
        table.add_row(Text(safe_text(name, one_line=True)), lesson.code, v.label, Prose(reason(v)))
    console.print(table)
