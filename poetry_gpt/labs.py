"""课程实验用的小工具：开头的 setup_experiment()，打印用的 show()、表格、热力图、折线图，
舍入噪声印成界的 below()、随机器而变的量标出来的 measured()。

全部用 rich 输出：在终端里有颜色；设置了 NO_COLOR 或输出被管道接走时自动退回纯文本。
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from uniseg.linebreak import line_break_units

from .common import COURSE_SEED, seed_everything

console = Console(highlight=False)
"""实验（show、table、heatmap、line_plot）与训练进度条的输出；poet 命令自己的输出在 courseware/cli/display.py。"""
WIDTH = 80
"""实验的一行最多这么宽（终端更宽也一样）：读得完一行；./poet verify 在 120 列里记下的输出与 80 列终端上的一字不差。"""


def line_width() -> int:
    """这次运行里实验的一行最多几格：终端的宽度，最多 WIDTH。"""
    return min(console.width, WIDTH)


# ---------- 折行：Unicode 的断行规则 UAX #14（./poet 的面板、表格与课文排版也用） ----------

_PHRASE_END = set("，。、；：！？ ·/")
"""phrase=True（标题、课名、实验的长句）时只在这些字之后折。"""


def fold_atoms(line: str, phrase: bool = False, sealed: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """一行文字 → 不在中间折开的小段 [(开始, 结束), …]（字符下标，段尾的空格属于这一段）。

    断点是 UAX #14（uniseg）允许的地方：任意两个汉字之间，句号、逗号、右引号不放到行首，左引号不留在行尾，
    数与拉丁词（first_line、0.893、smoothed.sum(dim=1,）不拆开。sealed 里的每一段（如行内代码）中间不折；
    phrase=True（标题、课名）时只在标点与空格之后折。bench/line_breaking.py 在课文上把它与手写的规则比过。
    """
    atoms: list[tuple[int, int]] = []
    at = 0
    for unit in line_break_units(line) if line else ():
        end = at + len(unit)
        if atoms and (any(a < at < b for a, b in sealed) or phrase and line[at - 1] not in _PHRASE_END):
            atoms[-1] = (atoms[-1][0], end)  # 这个断点不用：接到前一段上
        else:
            atoms.append((at, end))
        at = end
    return atoms


def fold_lines(
    text: str, width: int, phrase: bool = False, sealed: Sequence[tuple[int, int]] = ()
) -> list[tuple[int, int]]:
    """把 text 折成每行不超过 width 格，返回每一行在 text 里的 (开始, 结束)（行尾的空格不算）。

    只在 :func:`fold_atoms` 的边界折（sealed 的下标对整个 text），原有的换行照旧；
    一段本身比 width 还宽（很长的路径）时才在段里硬折。"""
    lines: list[tuple[int, int]] = []
    offset = 0
    for segment in text.split("\n"):
        start = offset
        inside = [(a - offset, b - offset) for a, b in sealed]
        for a, b in fold_atoms(segment, phrase, inside):
            a, b = a + offset, b + offset
            if a > start and cell_len(text[start:b].rstrip(" ")) > width:
                lines.append((start, a))
                start = a
            while cell_len(text[start:b].rstrip(" ")) > width:  # 硬折：只有一段比整行还宽时
                cut = start + 1
                while cut < b and cell_len(text[start : cut + 1]) <= width:
                    cut += 1
                lines.append((start, cut))
                start = cut
        lines.append((start, offset + len(segment)))
        offset += len(segment) + 1
    return [(a, a + len(text[a:b].rstrip(" "))) for a, b in lines]


def _print_titled(t: Table, title: str | None) -> None:
    """印一张表和它的标题。标题比表宽时（窄表、转置过的表）rich 会把它挤在表宽里、在任意两个字之间折行：
    这时标题单独印在表上面一行，像 :func:`say` 一样最宽 80 列、只在标点与空格处折。"""
    if title and cell_len(title) > _natural_width(t):
        say(Text(title, style="table.title"))
    elif title:
        t.title = title
    console.print(t)


def setup_experiment(seed: int = COURSE_SEED, threads: int = 2) -> None:
    """每个实验的第一行：用 threads 个计算线程（学习者的笔记本是两核），固定 Python 与 torch 的随机数，
    让实验每次打印相同的结果。环境变量 OMP_NUM_THREADS 设得更少时听它的（比如同时跑几个实验时设为 1，
    免得几个进程的线程抢同两个核）。"""
    import os

    import torch

    limit = os.environ.get("OMP_NUM_THREADS", "")
    torch.set_num_threads(min(threads, int(limit)) if limit.isdigit() and int(limit) > 0 else threads)
    seed_everything(seed)


class Measured(float):
    """随机器、随负载而变的量（计时，以及由计时算出的比值）：见 :func:`measured`。"""


class MeasuredText(str):
    """已经排好的、随机器而变的文字（如 f"{x:.1e}" 写出的舍入差）：见 :func:`measured`。"""


def measured(value: float | str) -> Measured | MeasuredText:
    """把一个随机器而变的量标出来：计时、由计时算出的比值，以及换了线程数或 CPU 就会变的舍入差
    （两种算法最多相差 2.9e-10 这种数）。平常照样印出来；环境变量 POET_MEASURED=1 时（./poet verify
    运行实验、--record 记录输出时）印成 ⟨0.327⟩：记录下来的输出与课文里的数比较时不看它。"""
    return MeasuredText(value) if isinstance(value, str) else Measured(value)


def below(value: float, bound: str) -> str:
    """一个本身就是舍入噪声的量（两种算法之差、应为 0 的和）印成界：绝对值小于 bound（如 "1e-6"）时是“不到 1e-6”，
    这句话在哪种 CPU、几个线程上都一样，可以记录、可以写进课文；不小于时印出它的值，输出就与记录不同，
    ./poet verify 与测试随之失败——界本身是检查过的，不是写死的。"""
    x = abs(float(value))
    return f"不到 {bound}" if x < float(bound) else f"{x:.1e}（超过了 {bound}）"


def _fmt(value: Any, digits: int = 4) -> str:
    """把数、张量、嵌套列表排成短文本；浮点保留 digits 位小数；标了 :func:`measured` 的数按需加 ⟨⟩。"""
    import os

    if isinstance(value, Measured) and os.environ.get("POET_MEASURED") == "1":
        return f"⟨{value:.{digits}f}⟩"
    if isinstance(value, MeasuredText) and os.environ.get("POET_MEASURED") == "1":
        return f"⟨{value}⟩"
    try:
        import torch

        if isinstance(value, torch.Tensor):
            value = value.detach().tolist() if value.dim() else value.item()
    except ImportError:  # pragma: no cover - torch 总是在
        pass
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v, digits) for v in value) + "]"
    return str(value)


INDENT = 2
"""折开的一行，接下去的几行缩进这么多格：看得出接着上一行。"""


_CLAUSE_END = set("，。；：、！？")


def _clause_spans(text: str, width: int) -> list[tuple[int, int]] | None:
    """把一行折成每行不超过 width 格、只在分句处折（中文标点之后、列表的“, ”之后）；做不到时返回 None。"""
    cuts = [i + 1 for i, ch in enumerate(text) if ch in _CLAUSE_END or ch == " " and text[i - 1 : i] == ","]
    spans, start = [], 0
    while cell_len(text[start:]) > width:
        cut = max((c for c in cuts if c > start and cell_len(text[start:c].rstrip()) <= width), default=None)
        if cut is None:
            return None
        spans.append((start, len(text[:cut].rstrip())))
        start = cut
    return spans + [(start, len(text))]


def say(text: str | Text) -> None:
    """打印一行文字；比 :func:`line_width` 宽时折开，接下去的行缩进两格：先只在分句处（中文标点、列表的逗号之后）折，
    数与单位（“5993 个”）不分开；这样折不下时再在空格处折（fold_lines），数与词仍不拆开。"""
    line = Text(text) if isinstance(text, str) else text
    width = line_width()
    if cell_len(line.plain) > width:
        spans = _clause_spans(line.plain, width - INDENT) or fold_lines(line.plain, width - INDENT, phrase=True)
        line = Text("\n" + " " * INDENT).join(line[a:b] for a, b in spans)
    console.print(line, soft_wrap=True)


def show(label: str, value: Any, digits: int = 4) -> None:
    """打印一行“标签：值”。张量和列表会展开，浮点数保留 ``digits`` 位小数；太长的一行像 :func:`say` 一样折开。"""
    line = Text()
    line.append(f"{label}：", style="bold cyan")
    line.append(_fmt(value, digits))
    say(line)


def _natural_width(renderable) -> int:
    """不折行时要几格（不受终端宽度限制）。"""
    return Measurement.get(console, console.options.update_width(10_000), renderable).maximum


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None, digits: int = 4) -> None:
    """打印一张表；每个单元格按 :func:`show` 的规则排版。

    比 :func:`line_width` 宽、转置以后放得下的表（十几列、一两行）转置着印：列名成了第一列，每一行成了一列——
    免得 rich 把表挤窄、在格子里折开数（“100/00”）。"""

    def build(heads: Sequence[Any], body: Sequence[Sequence[str]]) -> Table:
        t = Table(title_justify="left")
        for h in heads:
            t.add_column(str(h), justify="right", overflow="fold")  # 窄终端里折开长词，不用 … 吞掉字
        for row in body:
            t.add_row(*row)
        return t

    cells = [[_fmt(v, digits) for v in row] for row in rows]
    t = build(headers, cells)
    if _natural_width(t) > line_width():
        columns = list(zip(*cells))
        flipped = build([headers[0], *columns[0]], [[str(h), *col] for h, col in zip(headers[1:], columns[1:])])
        if _natural_width(flipped) <= line_width():
            t = flipped
    _print_titled(t, title)


def heatmap(matrix, row_labels: Sequence[str], col_labels: Sequence[str], title: str | None = None) -> None:
    """把一个 [R, K] 矩阵画成彩色方格：越亮数值越大（按整张表的最小、最大值归一）。

    没有颜色时（NO_COLOR 或管道），每格改印两位小数，信息不丢；终端太窄放不下时改印一位数字 0–9
    （把最小到最大分成十档），免得负数被截成“-0.…”。
    """
    rows = [list(map(float, r)) for r in (matrix.tolist() if hasattr(matrix, "tolist") else matrix)]
    lo = min(min(r) for r in rows)
    hi = max(max(r) for r in rows)
    span = (hi - lo) or 1.0
    colour = console.color_system is not None

    def grid(cell, padding=(0, 1)) -> Table:
        t = Table(title_justify="left", show_edge=False, pad_edge=False, box=None, padding=padding)
        t.add_column("")
        for c in col_labels:
            t.add_column(str(c), justify="center")
        for label, r in zip(row_labels, rows):
            t.add_row(str(label), *(cell(v) for v in r))
        return t

    def swatch(v: float) -> Text:
        level = int(40 + 215 * (v - lo) / span)
        return Text("  ", style=f"on rgb({level // 3},{level // 2},{level})")

    t = grid(swatch if colour else lambda v: Text(f"{v:.2f}"))
    if not colour and _natural_width(t) > line_width():  # 格子之间只留一格：12 列的“-0.27”连同行名放得进 80 列
        t = grid(lambda v: Text(f"{v:.2f}"), padding=(0, 1, 0, 0))
    digits = not colour and _natural_width(t) > line_width()
    if digits:
        t = grid(lambda v: Text(str(min(9, int(10 * (v - lo) / span)))))
    _print_titled(t, title)
    how = "颜色越亮" if colour else "数字 0–9 越大" if digits else ""
    console.print(f"[dim]{how}数值越大：最小 {lo:.3f}，最大 {hi:.3f}[/dim]")


_MARKS = ".o+*x#"
_COLOURS = ("cyan", "magenta", "green", "yellow", "blue", "red")


def plot_rows(
    series: dict[str, Sequence[tuple[float, float]]],
    hlines: dict[str, float] | None = None,
    width: int = 60,
    height: int = 14,
    y_limits: tuple[float, float] | None = None,
) -> list[list[tuple[str, int]]]:
    """把几条曲线排进一个 height 行 × width 列的字符格子，供 :func:`line_plot` 打印（也方便测试）。

    Args:
        series: 名字 → [(x, y), …]；第 i 条曲线用记号 ``_MARKS[i]``。同一列里落了多个点时每个点都画，
            所以抖动的曲线会显出一条带子。
        hlines: 名字 → y：画成一整行 ``-`` 的水平参考线（例如二元基线）。
        y_limits: (下限, 上限)：只画这个范围里的点，好把纵轴放大到关心的一段；None 时取全部点的范围。

    Returns:
        每个格子的 (字符, 曲线编号)；编号 -1 是空白，-2 是参考线。第 0 行是 y 最大的一行。

    Raises:
        ValueError: 没有任何点，或曲线多于 6 条。
    """
    if len(series) > len(_MARKS):
        raise ValueError(f"一张图最多画 {len(_MARKS)} 条曲线")
    points = [(x, y) for pts in series.values() for x, y in pts]
    if not points:
        raise ValueError("没有可画的点")
    x0, x1 = min(x for x, _ in points), max(x for x, _ in points)
    y0, y1 = y_limits or _y_range(points, hlines)
    col = lambda x: round((x - x0) / ((x1 - x0) or 1) * (width - 1))
    row = lambda y: round((y1 - y) / ((y1 - y0) or 1) * (height - 1))
    grid = [[(" ", -1)] * width for _ in range(height)]
    inside = lambda y: y0 <= y <= y1
    for y in filter(inside, (hlines or {}).values()):
        grid[row(y)] = [("-", -2)] * width
    for i, pts in enumerate(series.values()):  # 后画的曲线压在先画的上面
        for x, y in pts:
            if inside(y):
                grid[row(y)][col(x)] = (_MARKS[i], i)
    return grid


def _y_range(points, hlines) -> tuple[float, float]:
    ys = [y for _, y in points] + list((hlines or {}).values())
    return min(ys), max(ys)


def line_plot(
    series: dict[str, Sequence[tuple[float, float]]],
    hlines: dict[str, float] | None = None,
    width: int = 60,
    height: int = 14,
    y_limits: tuple[float, float] | None = None,
    title: str | None = None,
    x_label: str = "步",
    digits: int = 2,
) -> None:
    """在终端里画折线图（散点）：左边是 y 的刻度，下面是 x 的两端，最后一行是图例。

    参数同 :func:`plot_rows`；title 印在图上方，x_label 是横轴的名字，digits 是 y 刻度的小数位。
    """
    grid = plot_rows(series, hlines, width, height, y_limits)
    points = [(x, y) for pts in series.values() for x, y in pts]
    y0, y1 = y_limits or _y_range(points, hlines)
    x0, x1 = min(x for x, _ in points), max(x for x, _ in points)
    label_width = max(len(f"{v:.{digits}f}") for v in (y0, y1))
    if title:
        console.print(Text(title, style="bold"))
    for r, cells in enumerate(grid):
        # 刻度写在第一行、中间一行和最后一行
        value = y1 - (y1 - y0) * r / max(height - 1, 1)
        tick = f"{value:.{digits}f}" if r in (0, (height - 1) // 2, height - 1) else ""
        line = Text(f"{tick:>{label_width}} |")
        for ch, owner in cells:
            line.append(ch, style=_COLOURS[owner] if owner >= 0 else ("dim" if owner == -2 else ""))
        console.print(line, soft_wrap=True)
    console.print(" " * label_width + " +" + "-" * width)
    left, right = f"{x0:g}", f"{x1:g}"
    console.print(
        " " * (label_width + 2) + left + " " * max(1, width - len(left) - len(right)) + right + f"  {x_label}"
    )
    legend = Text(" " * (label_width + 2))
    for i, name in enumerate(series):
        legend.append(f"{_MARKS[i]} {name}", style=_COLOURS[i])
        legend.append("   ")
    for name, y in (hlines or {}).items():
        legend.append(f"- {name} {y:.{digits + 1}f}", style="dim")
        legend.append("   ")
    console.print(legend, soft_wrap=True)
