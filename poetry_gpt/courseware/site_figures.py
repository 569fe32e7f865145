"""课程网站的插图：在构建网站时用仓库里的代码现算，画成内嵌 SVG，并配一段逐步的文字解读。

每张图的数和实验打印的数出自同一段计算：
- 第 09 课：与 lessons/09/experiment.py 同样的种子、汉字表和新建模型，“春风月”的字向量、位置行与它们的和；
- 第 10、11 课：随课程发布的模型 data/model.pt 第 0 层的注意力权重（poetry_gpt.probes.attention_weights，
  两课的实验也调用它）；
- 第 19 课：发布模型存档里记下的训练与验证损失（metrics.loss_curves）。
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from html import escape
from typing import Callable

import torch

from ..checkpoint import load_model
from ..common import COURSE_SEED
from ..data import SEP, default_tokenizer, encode_sample, load_poems, split_lines
from ..metrics import loss_curves
from ..model import ModelConfig, PoetryGPT
from ..probes import attention_weights

PAPER = (251, 248, 241)   # 纸色
INK = (140, 47, 27)       # 朱砂：正数、注意力权重
BLUE = (47, 93, 140)      # 靛蓝：负数


@dataclass(frozen=True)
class Figure:
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
    return (f'<svg class="figure-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'style="{style}" role="img" aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg" '
            f'font-family="inherit">' + "".join(body) + "</svg>")


def _text(x: float, y: float, content: str, size: int = 12, anchor: str = "start", fill: str = "#2b2620",
          weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
            f'font-weight="{weight}">{escape(content)}</text>')


# ---------- 第 09 课：字向量 + 位置行 = 送进模型的向量 ----------

def lesson09() -> Figure:
    """与 lessons/09/experiment.py 相同的新建模型，画“春风月”每个位置的前 4 个数。"""
    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)  # 与实验开头的 setup_experiment() 同一个种子
        tok = default_tokenizer()
        model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
    text, swapped = "春风月", "风春月"
    with torch.no_grad():
        ids = torch.tensor([tok.encode(text)])                  # [1, 3]
        ids_b = torch.tensor([tok.encode(swapped)])
        pos = torch.arange(ids.shape[1])                        # [3]
        chars = model.characters(ids)[0]                        # [3, C]
        rows = model.positions(pos)                             # [3, C]
        summed = (model.characters(ids) + model.positions(pos))[0]      # [3, C]，实验里的 ha[0]
        summed_b = (model.characters(ids_b) + model.positions(pos))[0]  # 实验里的 hb[0]
    k = 4  # 实验打印每行前 4 个数
    scale = max(chars[:, :k].abs().max(), rows[:, :k].abs().max(), summed[:, :k].abs().max()).item()

    # 竖排：每个位置一块，三行依次是字向量、位置行、相加；手机上不必缩得太小
    cell, left, label_w, row, block = 46, 10, 92, 34, 150
    width = left * 2 + label_w + cell * k
    height = block * len(text) + 4
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>']

    def strip_at(x0: float, y0: float, values: torch.Tensor, bold: bool) -> None:
        for i in range(k):
            v = values[i].item()
            fill = _mix(INK if v >= 0 else BLUE, abs(v) / scale)
            ink = "#fffdf8" if abs(v) / scale > 0.6 else "#2b2620"
            stroke = 'stroke="#8c2f1b" stroke-width="1.5"' if bold else 'stroke="#d9cfbd"'
            body.append(f'<rect x="{x0 + i * cell:.1f}" y="{y0:.1f}" width="{cell - 3}" height="{row - 6}" rx="3" '
                        f'fill="{fill}" {stroke}/>')
            body.append(_text(x0 + i * cell + (cell - 3) / 2, y0 + 18, _num(v), 12, "middle", ink))

    for t, ch in enumerate(text):
        y = t * block + 6
        body.append(_text(left, y + 14, f"位置 {t} · “{ch}”（编号 {ids[0, t].item()}）", 14, weight="bold"))
        for j, (label, values) in enumerate(((f"字向量[{ch}]", chars[t]), (f"+ 位置行[{t}]", rows[t]),
                                             (f"= h{t}", summed[t]))):
            yy = y + 24 + j * row
            body.append(_text(left, yy + 18, label, 13, fill="#8c2f1b" if j == 2 else "#6b6155",
                              weight="bold" if j == 2 else "normal"))
            strip_at(left + label_w, yy, values, j == 2)
        if t + 1 < len(text):
            body.append(f'<line x1="{left}" y1="{y + block - 12}" x2="{width - left}" y2="{y + block - 12}" '
                        f'stroke="#e2d8c6" stroke-dasharray="4 4"/>')

    same = [torch.equal(summed[t], summed_b[t]) for t in range(len(text))]
    fmt = lambda v: "[" + ", ".join(f"{x:.4f}" for x in v[:k].tolist()) + "]"
    steps = [
        f"字向量：“春”的编号是 {ids[0, 0].item()}，在 characters 里查出第 {ids[0, 0].item()} 行，前 4 个数 {fmt(chars[0])}。"
        "同一个字不论放在哪个位置，查到的都是这一行。",
        f"位置 0：positions 的第 0 行 {fmt(rows[0])}，只和“第一个位置”有关，与是什么字无关。",
        f"合在一起：两行逐项相加得到 h0 {fmt(summed[0])}，宽度仍是 C = {chars.shape[1]}，图里只画前 4 个数，h 那一行描了红框。",
        f"位置 1：“风”加的是第 1 行 {fmt(rows[1])}；每一行的位置部分都不同。",
        f"交换顺序：换成“{swapped}”后，第 1 行变成 {fmt(summed_b[0])}。三行是否相同："
        + "、".join("是" if s else "否" for s in same) + "——“月”仍在位置 2，所以只有第 3 行不变。",
        "格子的颜色：朱红是正数，靛蓝是负数，越深绝对值越大。模型刚建好还没训练，这些数都很小（约 ±0.05）。",
    ]
    return Figure("用真实的数看“字 + 位置”", _svg(width, height, "春风月每个位置的字向量、位置行与相加结果", body), steps)


# ---------- 第 10、11 课：发布模型第 0 层的注意力权重 ----------

@functools.cache  # 第 10、11 课用同一份：模型与语料只读一次
def _trained_line_weights():
    """与第 10、11 课实验同一句：验证集里第一首七言绝句的第一句，前面接上训练时的条件区。

    返回 (诗, 这一句, 列标签, 正文开始的位置, 权重 [H, 句长, 条件区 + 句长])。
    """
    tok = default_tokenizer()
    model, _ = load_model()
    poem = next(p for p in load_poems("val") if p["form"] == "七言绝句")
    line = split_lines(poem["text"])[0]
    sample = encode_sample(poem, tok)
    start = sample.index(SEP) + 1
    ids = torch.tensor([sample[: start + len(line)]])            # [1, 12]
    labels = [tok.tokens[i] for i in ids[0].tolist()]
    weights = attention_weights(model, ids, layer=0)[0, :, start:]  # [H, 7, 12]
    return poem, line, labels, start, weights


def _heatmap(body: list[str], x0: float, y0: float, w: torch.Tensor, rows: list[str], cols: list[str],
             start: int, cell: int, title: str) -> tuple[float, float]:
    """在 (x0, y0) 画一张权重热图，返回它占的宽和高。w: [len(rows), len(cols)]。"""
    label_w, label_h = 26, 30
    body.append(_text(x0, y0 + 14, title, 13, weight="bold"))
    y0 += 22
    for j, name in enumerate(cols):
        body.append(_text(x0 + label_w + j * cell + cell / 2, y0 + label_h - 9, name, 9 if len(name) > 1 else 12,
                          "middle", "#6b6155" if j < start else "#2b2620"))
    for i, name in enumerate(rows):
        y = y0 + label_h + i * cell
        body.append(_text(x0 + label_w / 2, y + cell / 2 + 4.5, name, 13, "middle"))
        for j in range(len(cols)):
            x = x0 + label_w + j * cell
            if j > start + i:  # 后文：因果遮挡看不到
                body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell - 2}" height="{cell - 2}" fill="#efe9dd"/>')
                continue
            v = w[i, j].item()
            body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell - 2}" height="{cell - 2}" rx="2" '
                        f'fill="{_mix(INK, v ** 0.7)}" stroke="#d9cfbd"/>')
            if cell >= 26:
                body.append(_text(x + (cell - 2) / 2, y + cell / 2 + 3.5, _num(v, 2), 11, "middle",
                                  "#fffdf8" if v > 0.35 else "#2b2620"))
    # 条件区与正文的分界线
    xs = x0 + label_w + start * cell - 1
    body.append(f'<line x1="{xs:.1f}" y1="{y0 + label_h - 4:.1f}" x2="{xs:.1f}" '
                f'y2="{y0 + label_h + len(rows) * cell:.1f}" stroke="#8c2f1b" stroke-dasharray="3 3"/>')
    return label_w + len(cols) * cell, 22 + label_h + len(rows) * cell


def _previous_weight(w: torch.Tensor, start: int) -> torch.Tensor:
    """w: [H, 句长, 列数] → [H]：正文每一行给上一个位置的权重，在各行上取平均（第 10 课实验的挑头办法）。"""
    return w.diagonal(offset=start - 1, dim1=-2, dim2=-1).mean(-1)


def lesson10() -> Figure:
    """发布模型层 0 里最看“上一个字”的那个头，看验证集的一句诗。"""
    poem, line, labels, start, w = _trained_line_weights()
    prev = _previous_weight(w, start)
    head = prev.argmax().item()
    wh = w[head]                                                   # [7, 12]
    body: list[str] = []
    cell = 40
    fig_w, fig_h = _heatmap(body, 12, 6, wh, list(line), labels, start, cell,
                            f"层 0、头 {head}：行是正文的字，列是它能看到的位置")
    width, height = int(fig_w + 24), int(fig_h + 16)
    body.insert(0, f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>')
    T = len(line)
    to_prev = [wh[t, start + t - 1].item() for t in range(T)]
    wins = sum(wh[t].argmax().item() == start + t - 1 for t in range(T))
    best = max(range(1, T), key=lambda t: to_prev[t])
    steps = [
        f"输入：验证集里 {poem['author']}《{poem['title']}》的第一句“{line}”，前面是训练时的条件区 "
        f"{' '.join(labels[:start])}，共 {len(labels)} 个位置。虚线左边是条件区。",
        "每一行是正文的一个字，每一格是它给那一列的注意力权重；格子越红权重越大，每行加起来是 1。",
        "右上方的浅灰格是后文：因果遮挡让一个字看不到它后面的字，权重为 0。",
        f"挑头：{len(prev)} 个头给“上一个位置”的平均权重是 {', '.join(f'{p:.2f}' for p in prev.tolist())}，"
        f"头 {head} 最大，所以画它。训练不规定哪个头做什么，重训后可能换成别的头。",
        f"读一行：“{line[best]}”把 {to_prev[best]:.2f} 的权重给了上一个字“{labels[start + best - 1]}”；"
        f"平均分配的话每格只有 {1 / (start + best + 1):.2f}。",
        f"整体：{T} 行里有 {wins} 行把最大的权重给了上一个位置。它学会了“回头看一眼上一个字”。",
    ]
    return Figure("发布模型的一个注意力头", _svg(width, height, f"层 0、头 {head} 的注意力权重热图", body), steps)


def lesson11() -> Figure:
    """发布模型层 0 的各个头看同一句，两个一排。"""
    poem, line, labels, start, w = _trained_line_weights()
    H, T = w.shape[0], len(line)
    prev = _previous_weight(w, start)
    cell = 24
    body: list[str] = []
    pane_w = pane_h = 0.0
    for i in range(H):
        x, y = 12 + (i % 2) * (pane_w + 24 if pane_w else 0), 6 + (i // 2) * (pane_h + 14 if pane_h else 0)
        pane_w, pane_h = _heatmap(body, x, y, w[i], list(line), labels, start, cell, f"头 {i}")
    width, height = int(12 + 2 * pane_w + 24 + 12), int(6 + 2 * pane_h + 14 + 10)
    body.insert(0, f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>')
    steps = [f"同一句“{line}”（{poem['author']}《{poem['title']}》）和同样的条件区，层 0 的 {H} 个头各算一张权重表。"]
    for i in range(H):
        top = w[i].argmax(-1).tolist()                             # 每行最大权重的列
        targets = [labels[j] for j in top]
        common = max(targets, key=targets.count)                   # 并列时取先出现的，每次构建都一样
        to_prev = sum(j == start + t - 1 for t, j in enumerate(top))
        # 看上一个字的头，每行的“上一个字”各不相同，按列名数会数少，所以按位置再数一次
        where, count = f"“{common}”", targets.count(common)
        if to_prev > count:
            where, count = "上一个位置", to_prev
        steps.append(f"头 {i}：给上一个位置的平均权重 {prev[i]:.2f}；{T} 行里有 {count} 行把最大的权重给了{where}。")
    steps.append("各头读的是宽度 C 里自己的那一段，训练让它们分了工：有的盯着上一个字，有的回头看条件区。"
                 "哪个头做什么是训练出来的，重训后可能换位置。")
    return Figure("四个头看同一句", _svg(width, height, "层 0 四个注意力头的权重热图", body), steps)


# ---------- 第 19 课：训练与验证损失 ----------

def lesson19() -> Figure:
    """发布模型存档里的训练日志：每步的训练损失与每隔一段的验证损失（奈特/字）。"""
    curves = loss_curves()
    train, val = curves["train"], curves["val"]
    width, height, left, top, right, bottom = 640, 300, 48, 18, 16, 36
    x_max = max(s for s, _ in train)
    y_lo = min(v for _, v in train + val)
    y_hi = min(max(v for _, v in train + val), y_lo + 6)
    X = lambda s: left + (width - left - right) * s / x_max
    Y = lambda v: top + (height - top - bottom) * (1 - (min(v, y_hi) - y_lo) / (y_hi - y_lo))
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#6b6155"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#6b6155"/>']
    for v in range(int(y_lo) + 1, int(y_hi) + 1):
        body.append(_text(left - 6, Y(v) + 4, str(v), 11, "end", "#6b6155"))
    body.append(_text(width - right, height - 10, f"步数（共 {x_max}）", 11, "end", "#6b6155"))
    # 训练损失每步一个点，太密：每 10 步取平均
    smooth = [(train[i][0], sum(v for _, v in train[i:i + 10]) / len(train[i:i + 10])) for i in range(0, len(train), 10)]
    for points, color, name in ((smooth, "#c9a27e", "训练"), (val, "#8c2f1b", "验证")):
        path = " ".join(f"{X(s):.1f},{Y(v):.1f}" for s, v in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
    body.append(_text(width - right - 4, top + 12, "浅色：训练（10 步平均）；深色：验证", 11, "end"))
    steps = [f"横轴是训练步数，纵轴是交叉熵（奈特/字）。训练损失从第 1 步的 {train[0][1]:.1f} 开始快速下降。",
             f"验证损失从第 {val[0][0]} 步的 {val[0][1]:.2f} 降到第 {val[-1][0]} 步的 {val[-1][1]:.2f}。",
             f"训练损失最后 10 步平均 {smooth[-1][1]:.2f}；两条线靠得越近，过拟合越轻。"]
    return Figure("发布模型的损失曲线", _svg(width, height, "训练与验证损失曲线", body), steps)


FIGURES: dict[int, Callable[[], Figure]] = {9: lesson09, 10: lesson10, 11: lesson11, 19: lesson19}
"""课号 → 画图函数。只有写好的课才会调用它的画图函数。"""
