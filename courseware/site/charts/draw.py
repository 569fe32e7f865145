"""课程网站插图的画法：纸色与墨色、整张 SVG、文字、坐标轴、折线、圆点、横条（各课的图共用）。"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

PAPER = (251, 248, 241)  # 纸色
INK = (140, 47, 27)  # 朱砂：正数、注意力权重
BLUE = (47, 93, 140)  # 靛蓝：负数
MUTED = "#6b6155"  # 灰褐：说明文字、坐标轴


@dataclass(frozen=True)
class Chart:
    """一张插图：标题、SVG 源码、逐步解读（纯文本，每条一步）。"""

    title: str
    svg: str
    steps: list[str]


def _mix(color: tuple[int, int, int], amount: float) -> str:
    """从纸色向 color 过渡，amount 在 0–1 之间。"""
    amount = max(0.0, min(1.0, amount))
    r, g, b = (round(p + (c - p) * amount) for p, c in zip(PAPER, color))
    return f"#{r:02x}{g:02x}{b:02x}"


def _num(x: float, digits: int = 3) -> str:
    """短写法：-0.020 → −.020，给格子里的小数省地方。"""
    text = f"{abs(x):.{digits}f}".lstrip("0") or "0"
    return ("−" if x < 0 and float(text) != 0 else "") + text


def _svg(width: int, height: int, label: str, body: list[str]) -> str:
    """整张图。宽度随栏宽缩放，但最多放大到 1.3 倍、最少保留 480 像素宽（手机上图框里可以横向滑动），
    字不会小到看不清。"""
    style = f"min-width:{min(width, 480)}px;max-width:{round(width * 1.3)}px"
    return (
        f'<svg class="figure-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'style="{style}" role="img" aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg" '
        f'font-family="inherit">' + "".join(body) + "</svg>"
    )


def _text(
    x: float,
    y: float,
    content: str,
    size: int = 12,
    anchor: str = "start",
    fill: str = "#2b2620",
    weight: str = "normal",
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
        f'font-weight="{weight}">{escape(content)}</text>'
    )


# ---------- 画折线图、横条的小工具 ----------


def _plot(
    width: int,
    height: int,
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    margin: tuple[int, int, int, int] = (18, 16, 40, 64),
):
    """一块画图区：返回 (X, Y, body)。X、Y 把数据坐标换成像素；body 里已有底色与两条坐标轴。
    margin 是 (上, 右, 下, 左) 的留白（像素）。"""
    top, right, bottom, left = margin
    (x0, x1), (y0, y1) = x_range, y_range
    X = lambda x: left + (width - left - right) * (x - x0) / ((x1 - x0) or 1)  # noqa: E731
    Y = lambda y: top + (height - top - bottom) * (1 - (y - y0) / ((y1 - y0) or 1))  # noqa: E731
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="{MUTED}"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="{MUTED}"/>',
    ]
    return X, Y, body


def _polyline(points, X, Y, color: str, width: float = 2, dash: str = "") -> str:
    path = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in points)
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="{width}"{extra}/>'


def _dot(x: float, y: float, color: str = "#8c2f1b", r: float = 4) -> str:
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"/>'


def _bars(
    body: list[str],
    x0: float,
    y0: float,
    rows: list[tuple[str, float, bool]],
    bar_w: float,
    scale: float,
    row_h: int = 22,
    label_w: int = 30,
    digits: int = 3,
) -> float:
    """一组横条：rows 是 (标签, 数值, 是否描红)，数值 scale 画满 bar_w 像素。返回画完的高度。"""
    for i, (label, value, marked) in enumerate(rows):
        y = y0 + i * row_h
        color = "#8c2f1b" if marked else "#c9a27e"
        body.append(_text(x0 + label_w - 6, y + 15, label, 13, "end", weight="bold" if marked else "normal"))
        w = max(0.0, bar_w * value / scale) if scale else 0.0
        body.append(
            f'<rect x="{x0 + label_w:.1f}" y="{y + 3:.1f}" width="{w:.1f}" height="{row_h - 7}" rx="2" fill="{color}"/>'
        )
        body.append(_text(x0 + label_w + w + 5, y + 15, f"{value:.{digits}f}", 11, fill=MUTED))
    return len(rows) * row_h
