"""第 10、11 课的插图：发布模型第 0 层的注意力权重热图。"""

from __future__ import annotations

import functools

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import SEP, default_tokenizer, encode_sample, load_poems, split_lines
from poetry_gpt.probes import attention_weights, previous_position_weight

from .draw import INK, Chart, _mix, _num, _svg, _text

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
    ids = torch.tensor([sample[: start + len(line)]])  # [1, 12]
    labels = [tok.tokens[i] for i in ids[0].tolist()]
    weights = attention_weights(model, ids, layer=0)[0, :, start:]  # [H, 7, 12]
    return poem, line, labels, start, weights


def _heatmap(
    body: list[str],
    x0: float,
    y0: float,
    w: torch.Tensor,
    rows: list[str],
    cols: list[str],
    start: int,
    cell: int,
    title: str,
) -> tuple[float, float]:
    """在 (x0, y0) 画一张权重热图，返回它占的宽和高。w: [len(rows), len(cols)]。"""
    label_w, label_h = 26, 30
    body.append(_text(x0, y0 + 14, title, 13, weight="bold"))
    y0 += 22
    for j, name in enumerate(cols):
        body.append(
            _text(
                x0 + label_w + j * cell + cell / 2,
                y0 + label_h - 9,
                name,
                9 if len(name) > 1 else 12,
                "middle",
                "#6b6155" if j < start else "#2b2620",
            )
        )
    for i, name in enumerate(rows):
        y = y0 + label_h + i * cell
        body.append(_text(x0 + label_w / 2, y + cell / 2 + 4.5, name, 13, "middle"))
        for j in range(len(cols)):
            x = x0 + label_w + j * cell
            if j > start + i:  # 后文：因果遮挡看不到
                body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell - 2}" height="{cell - 2}" fill="#efe9dd"/>')
                continue
            v = w[i, j].item()
            body.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell - 2}" height="{cell - 2}" rx="2" '
                f'fill="{_mix(INK, v**0.7)}" stroke="#d9cfbd"/>'
            )
            if cell >= 26:
                body.append(
                    _text(
                        x + (cell - 2) / 2,
                        y + cell / 2 + 3.5,
                        _num(v, 2),
                        11,
                        "middle",
                        "#fffdf8" if v > 0.35 else "#2b2620",
                    )
                )
    # 条件区与正文的分界线
    xs = x0 + label_w + start * cell - 1
    body.append(
        f'<line x1="{xs:.1f}" y1="{y0 + label_h - 4:.1f}" x2="{xs:.1f}" '
        f'y2="{y0 + label_h + len(rows) * cell:.1f}" stroke="#8c2f1b" stroke-dasharray="3 3"/>'
    )
    return label_w + len(cols) * cell, 22 + label_h + len(rows) * cell


def lesson10() -> Chart:
    """发布模型层 0 里最看“上一个字”的那个头，看验证集的一句诗。"""
    poem, line, labels, start, w = _trained_line_weights()
    prev = previous_position_weight(w, start)  # [H]，与第 10 课实验挑头的是同一个函数
    head = prev.argmax().item()
    wh = w[head]  # [7, 12]
    body: list[str] = []
    cell = 40
    fig_w, fig_h = _heatmap(
        body, 12, 6, wh, list(line), labels, start, cell, f"层 0、头 {head}：行是正文的字，列是它能看到的位置"
    )
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
        f"整体：{T} 行里有 {wins} 行把最大的权重给了上一个位置"
        + (
            "。它学会了“回头看一眼上一个字”。"
            if 2 * wins > T
            else "；这一层的头大多先看条件区，更专门看上一个字的头在更深的层里。"
        ),
    ]
    return Chart("发布模型的一个注意力头", _svg(width, height, f"层 0、头 {head} 的注意力权重热图", body), steps)


def lesson11() -> Chart:
    """发布模型层 0 的各个头看同一句，两个一排。"""
    poem, line, labels, start, w = _trained_line_weights()
    H, T = w.shape[0], len(line)
    prev = previous_position_weight(w, start)  # [H]
    cell = 24
    body: list[str] = []
    pane_w = pane_h = 0.0
    for i in range(H):
        x, y = 12 + (i % 2) * (pane_w + 24 if pane_w else 0), 6 + (i // 2) * (pane_h + 14 if pane_h else 0)
        pane_w, pane_h = _heatmap(body, x, y, w[i], list(line), labels, start, cell, f"头 {i}")
    rows = (H + 1) // 2
    width, height = int(12 + 2 * pane_w + 24 + 12), int(6 + rows * pane_h + (rows - 1) * 14 + 10)
    body.insert(0, f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>')
    steps = [f"同一句“{line}”（{poem['author']}《{poem['title']}》）和同样的条件区，层 0 的 {H} 个头各算一张权重表。"]
    for i in range(H):
        top = w[i].argmax(-1).tolist()  # 每行最大权重的列
        targets = [labels[j] for j in top]
        common = max(targets, key=targets.count)  # 并列时取先出现的，每次构建都一样
        to_prev = sum(j == start + t - 1 for t, j in enumerate(top))
        # 看上一个字的头，每行的“上一个字”各不相同，按列名数会数少，所以按位置再数一次
        count = targets.count(common)
        if to_prev >= count:
            most = f"{T} 行里有 {to_prev} 行把最大的权重给了上一个位置"
        else:
            most = f"{T} 行里有 {count} 行把最大的权重给了“{common}”，{to_prev} 行给了上一个位置"
        steps.append(f"头 {i}：给上一个位置的平均权重 {prev[i]:.2f}；{most}。")
    steps.append(
        "各头读的是宽度 C 里自己的那一段，各算各的权重；分工是训练出来的（哪个头偏看什么，第 11 课在 1000 首诗上平均来看），"
        "重训后可能换位置。"
    )
    return Chart(f"{H} 个头看同一句", _svg(width, height, f"层 0 {H} 个注意力头的权重热图", body), steps)
