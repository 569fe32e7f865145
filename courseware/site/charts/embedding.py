"""第 08、09 课的插图：one-hot 乘表就是查表，字向量加位置行。"""

from __future__ import annotations

import torch

from poetry_gpt.common import COURSE_SEED
from poetry_gpt.data import default_tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT

from .draw import BLUE, INK, MUTED, Chart, _mix, _num, _svg, _text

# ---------- 第 08 课：one-hot 乘表就是查表 ----------


def _draw_one_hot(
    text: str, ids: torch.Tensor, one_hot: torch.Tensor, product: torch.Tensor, k: int, shown: int
) -> tuple[int, int, list[str]]:
    """text 的 one-hot 行（one_hot [T, V]，只画前 shown 列）乘字向量表的结果（product [T, C]，只画前 k 个数）。
    返回 (宽, 高, SVG 片段)。"""
    V, C = one_hot.shape[1], product.shape[1]
    cell, left, row_h = 8, 70, 64
    strip_w = shown * cell + 24
    width = left + strip_w + 60 + k * 52 + 12
    height = 40 + row_h * len(text) + 10
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            18,
            f"one-hot [T, V] = [{len(text)}, {V}]（只画前 {shown} 列）  @  字向量表 [V, C] = [{V}, {C}]"
            f"  =  [T, C]（只画前 {k} 个数）",
            12,
            fill=MUTED,
        ),
    ]
    for t, ch in enumerate(text):
        y = 36 + t * row_h
        i = ids[t].item()
        body.append(_text(12, y + 20, f"“{ch}” {i}", 13, weight="bold"))
        for j in range(shown):
            on = one_hot[t, j].item() == 1
            body.append(
                f'<rect x="{left + j * cell}" y="{y + 8}" width="{cell - 1}" height="16" '
                f'fill="{"#8c2f1b" if on else "#efe9dd"}"/>'
            )
        body.append(_text(left + shown * cell + 4, y + 21, "…", 12, fill=MUTED))
        body.append(_text(left + i * cell + cell / 2, y + 38, f"第 {i} 列是 1", 10, "middle", "#8c2f1b"))
        x0 = left + strip_w + 12
        body.append(_text(x0, y + 21, "→", 14, fill=MUTED))
        for j in range(k):
            v = product[t, j].item()
            body.append(
                f'<rect x="{x0 + 24 + j * 52}" y="{y + 4}" width="48" height="24" rx="3" '
                f'fill="{_mix(INK if v >= 0 else BLUE, abs(v) / 0.06)}" stroke="#d9cfbd"/>'
            )
            body.append(_text(x0 + 48 + j * 52, y + 21, _num(v, 4), 11, "middle"))
        body.append(_text(x0 + 24, y + 44, f"= 表的第 {i} 行", 10, fill=MUTED))
    return width, height, body


def lesson08() -> Chart:
    """与第 08 课实验相同的种子与新建模型：“春风月”的 one-hot 行，乘字向量表，取出的就是那几行。"""
    from torch.nn import functional as F

    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)  # 与实验开头的 setup_experiment() 同一个种子
        tok = default_tokenizer()
        model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
    weight = model.characters.weight.detach()  # [V, C]
    V, C = weight.shape
    text = "春风月"
    ids = torch.tensor(tok.encode(text))  # [3]
    one_hot = F.one_hot(ids, V).float()  # [3, V]
    product = one_hot @ weight  # [3, C]
    k, shown = 4, 40  # 画前 4 个数、one-hot 的前 40 列
    width, height, body = _draw_one_hot(text, ids, one_hot, product, k, shown)
    same = torch.allclose(product, model.characters(ids).detach())
    fmt = lambda v: "[" + ", ".join(f"{x:.4f}" for x in v[:k].tolist()) + "]"  # noqa: E731
    steps = [
        f"“{text}”的编号是 {ids.tolist()}。one-hot 把每个编号变成长 V = {V} 的一行，只有那一列是 1（红），其余都是 0。",
        f"one-hot [{len(text)}, {V}] 乘字向量表 [{V}, {C}]：每一行的结果是表里各行按 0、1 加权求和，"
        "只有为 1 的那一行留下来。",
        f"所以“{text[0]}”那一行的结果就是表的第 {ids[0].item()} 行，前 4 个数 {fmt(product[0])}；"
        f"与直接查表 characters(ids) 相同：{'是' if same else '否'}。",
        f"工作量差得很多：乘法要做 {len(text)} × {V} × {C} = {len(text) * V * C} 次乘加，查表一次也不用，"
        f"只是取出 {len(text)} × {C} = {len(text) * C} 个数。",
        "反向传播也一样：只有被查到的那几行有梯度，别的行的梯度都是 0。",
    ]
    return Chart("one-hot 乘表就是查表", _svg(width, height, "春风月的 one-hot 行乘字向量表", body), steps)


# ---------- 第 09 课：字向量 + 位置行 = 送进模型的向量 ----------


def _draw_sums(
    text: str, ids: torch.Tensor, chars: torch.Tensor, rows: torch.Tensor, summed: torch.Tensor, k: int
) -> tuple[int, int, list[str]]:
    """每个位置一块：字向量、位置行与相加之和（chars、rows、summed 各 [T, C]）的前 k 个数；
    ids [1, T] 是 text 的编号。返回 (宽, 高, SVG 片段)。"""
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
            body.append(
                f'<rect x="{x0 + i * cell:.1f}" y="{y0:.1f}" width="{cell - 3}" height="{row - 6}" rx="3" '
                f'fill="{fill}" {stroke}/>'
            )
            body.append(_text(x0 + i * cell + (cell - 3) / 2, y0 + 18, _num(v), 12, "middle", ink))

    for t, ch in enumerate(text):
        y = t * block + 6
        body.append(_text(left, y + 14, f"位置 {t} · “{ch}”（编号 {ids[0, t].item()}）", 14, weight="bold"))
        for j, (label, values) in enumerate(
            ((f"字向量[{ch}]", chars[t]), (f"+ 位置行[{t}]", rows[t]), (f"= h{t}", summed[t]))
        ):
            yy = y + 24 + j * row
            body.append(
                _text(
                    left,
                    yy + 18,
                    label,
                    13,
                    fill="#8c2f1b" if j == 2 else "#6b6155",
                    weight="bold" if j == 2 else "normal",
                )
            )
            strip_at(left + label_w, yy, values, j == 2)
        if t + 1 < len(text):
            body.append(
                f'<line x1="{left}" y1="{y + block - 12}" x2="{width - left}" y2="{y + block - 12}" '
                f'stroke="#e2d8c6" stroke-dasharray="4 4"/>'
            )
    return width, height, body


def lesson09() -> Chart:
    """与 lessons/09/experiment.py 相同的新建模型，画“春风月”每个位置的前 4 个数。"""
    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)  # 与实验开头的 setup_experiment() 同一个种子
        tok = default_tokenizer()
        model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
    text, swapped = "春风月", "风春月"
    with torch.no_grad():
        ids = torch.tensor([tok.encode(text)])  # [1, 3]
        ids_b = torch.tensor([tok.encode(swapped)])
        pos = torch.arange(ids.shape[1])  # [3]
        chars = model.characters(ids)[0]  # [3, C]
        rows = model.positions(pos)  # [3, C]
        summed = (model.characters(ids) + model.positions(pos))[0]  # [3, C]，实验里的 ha[0]
        summed_b = (model.characters(ids_b) + model.positions(pos))[0]  # 实验里的 hb[0]
    k = 4  # 实验打印每行前 4 个数
    width, height, body = _draw_sums(text, ids, chars, rows, summed, k)
    same = [torch.equal(summed[t], summed_b[t]) for t in range(len(text))]
    fmt = lambda v: "[" + ", ".join(f"{x:.4f}" for x in v[:k].tolist()) + "]"
    steps = [
        f"字向量：“春”的编号是 {ids[0, 0].item()}，在 characters 里查出第 {ids[0, 0].item()} 行，前 4 个数 {fmt(chars[0])}。"
        "同一个字不论放在哪个位置，查到的都是这一行。",
        f"位置 0：positions 的第 0 行 {fmt(rows[0])}，只和“第一个位置”有关，与是什么字无关。",
        f"合在一起：两行逐项相加得到 h0 {fmt(summed[0])}，宽度仍是 C = {chars.shape[1]}，图里只画前 4 个数，h 那一行描了红框。",
        f"位置 1：“风”加的是第 1 行 {fmt(rows[1])}；每一行的位置部分都不同。",
        f"交换顺序：换成“{swapped}”后，第 1 行变成 {fmt(summed_b[0])}。三行是否相同："
        + "、".join("是" if s else "否" for s in same)
        + "——“月”仍在位置 2，所以只有第 3 行不变。",
        "格子的颜色：朱红是正数，靛蓝是负数，越深绝对值越大。模型刚建好还没训练，这些数都很小（约 ±0.05）。",
    ]
    return Chart(
        "用真实的数看“字 + 位置”", _svg(width, height, "春风月每个位置的字向量、位置行与相加结果", body), steps
    )
