"""课程实验打印用的小工具：show()、表格、热力图。

全部用 rich 输出：在终端里有颜色；设置了 NO_COLOR 或输出被管道接走时自动退回纯文本。
"""
from __future__ import annotations

from typing import Any, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

console = Console(highlight=False)
error_console = Console(stderr=True, highlight=False, soft_wrap=True)
"""错误消息写到标准错误（不在 80 列处折断，里面的命令可以整行复制）：
``./poet write 月 --json > 诗.json`` 出错时，消息不会混进文件里。"""


def _fmt(value: Any, digits: int = 4) -> str:
    """把数、张量、嵌套列表排成短文本；浮点保留 digits 位小数。"""
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


def show(label: str, value: Any, digits: int = 4) -> None:
    """打印一行“标签：值”。张量和列表会展开，浮点数保留 ``digits`` 位小数。"""
    line = Text()
    line.append(f"{label}：", style="bold cyan")
    line.append(_fmt(value, digits))
    console.print(line, soft_wrap=True)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None, digits: int = 4) -> None:
    """打印一张表；每个单元格按 :func:`show` 的规则排版。"""
    t = Table(title=title, title_justify="left")
    for h in headers:
        t.add_column(str(h), justify="right")
    for row in rows:
        t.add_row(*(_fmt(v, digits) for v in row))
    console.print(t)


def heatmap(matrix, row_labels: Sequence[str], col_labels: Sequence[str], title: str | None = None) -> None:
    """把一个 [R, K] 矩阵画成彩色方格：越亮数值越大（按整张表的最小、最大值归一）。

    没有颜色时（NO_COLOR 或管道），每格改印两位小数，信息不丢。
    """
    rows = [list(map(float, r)) for r in (matrix.tolist() if hasattr(matrix, "tolist") else matrix)]
    lo = min(min(r) for r in rows)
    hi = max(max(r) for r in rows)
    span = (hi - lo) or 1.0
    colour = console.color_system is not None
    t = Table(title=title, title_justify="left", show_edge=False, pad_edge=False, box=None)
    t.add_column("")
    for c in col_labels:
        t.add_column(str(c), justify="center")
    for label, r in zip(row_labels, rows):
        cells = []
        for v in r:
            if colour:
                level = int(40 + 215 * (v - lo) / span)
                cells.append(Text("  ", style=f"on rgb({level // 3},{level // 2},{level})"))
            else:
                cells.append(Text(f"{v:.2f}"))
        t.add_row(str(label), *cells)
    console.print(t)
    console.print(f"[dim]颜色越亮数值越大：最小 {lo:.3f}，最大 {hi:.3f}[/dim]")
