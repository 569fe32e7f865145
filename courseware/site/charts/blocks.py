"""第 12–14 课的插图：GELU 与 ReLU、残差流穿过 Block、参数都在哪。"""

from __future__ import annotations

import torch

from poetry_gpt.common import COURSE_SEED
from poetry_gpt.data import default_tokenizer, encode_sample, load_poems
from poetry_gpt.model import ModelConfig, PoetryGPT

from .draw import MUTED, Chart, _dot, _plot, _polyline, _svg, _text

# ---------- 第 12 课：GELU 与 ReLU ----------

GELU_POINTS = (-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)
"""第 12 课实验“几种激活函数”表里的 x。"""


def lesson12() -> Chart:
    """torch 的 F.relu 与 F.gelu（精确、tanh 近似）在 [-3, 3] 上的曲线，标出 GELU 的最低点与实验表里的点。"""
    from torch.nn import functional as F

    grid = torch.linspace(-3, 3, 241, dtype=torch.float64)  # [241]
    relu, gelu = F.relu(grid), F.gelu(grid)
    low = int(gelu.argmin())
    width, height = 640, 320
    X, Y, body = _plot(width, height, (-3, 3), (-0.5, 3), margin=(20, 16, 40, 56))
    for v in (-0.5, 0, 1, 2, 3):
        body.append(_text(48, Y(v) + 4, f"{v:g}", 11, "end", MUTED))
        body.append(f'<line x1="56" y1="{Y(v):.1f}" x2="{width - 16}" y2="{Y(v):.1f}" stroke="#e2d8c6"/>')
    for v in (-3, -2, -1, 0, 1, 2, 3):
        body.append(_text(X(v), height - 22, f"{v:g}", 11, "middle", MUTED))
    body.append(_polyline(zip(grid.tolist(), relu.tolist()), X, Y, "#2f5d8c", 2, "6 4"))
    body.append(_polyline(zip(grid.tolist(), gelu.tolist()), X, Y, "#8c2f1b", 2.5))
    points = [(x, F.relu(torch.tensor(x)).item(), F.gelu(torch.tensor(x)).item()) for x in GELU_POINTS]
    for x, _, g in points:
        body.append(_dot(X(x), Y(g), r=3.5))
    body.append(_dot(X(grid[low].item()), Y(gelu[low].item()), "#2b2620", 4))
    body.append(
        _text(
            X(grid[low].item()),
            Y(gelu[low].item()) + 20,
            f"最低点 x = {grid[low].item():.2f}，GELU = {gelu[low].item():.4f}",
            11,
            "middle",
        )
    )
    body.append(_text(70, 30, "— GELU（精确）", 12, fill="#8c2f1b", weight="bold"))
    body.append(_text(70, 48, "- - ReLU", 12, fill="#2f5d8c", weight="bold"))
    body.append(_text(width - 16, height - 6, "x", 11, "end", MUTED))
    tanh_gap = (gelu - F.gelu(grid, approximate="tanh")).abs().max().item()
    fmt = lambda x, g: f"GELU({x:.4f}) = {g:.4f}"  # noqa: E731
    steps = [
        "横轴是输入 x，纵轴是激活之后的值；实线是 GELU（torch.nn.functional.gelu，精确的 erf 写法），虚线是 ReLU。",
        "右边两条线几乎重合：x 大时 GELU(x) ≈ x，和 ReLU 一样把数原样放过去。",
        f"左边不同：ReLU 把负数一律变成 0，GELU 留下一点负值，最低处在 x = {grid[low].item():.2f}，"
        f"约 {gelu[low].item():.4f}，再往左慢慢回到 0。",
        "红点是实验表里的 x：" + "；".join(fmt(x, g) for x, _, g in points) + "。",
        f"GELU(x) = x·Φ(x)：Φ(x) 是 x 被保留的比例，x = 0 时正好一半。tanh 近似在 [-3, 3] 上与精确写法最多差 "
        f"{tanh_gap:.6f}，画在图上看不出来。",
    ]
    return Chart("GELU 与 ReLU", _svg(width, height, "GELU 与 ReLU 的曲线", body), steps)


# ---------- 第 13 课：残差流与先归一化的 Block ----------


def _residual_stream(model: PoetryGPT, ids: torch.Tensor) -> tuple[list[int], list[float], list[float]]:
    """ids [B, T] 查表加位置后送进残差流。返回 (残差流的形状 [B, T, C]，第一个 Block 里注意力、MLP 的修改
    与它们加到的残差流的大小之比，输入与每个 Block 之后残差流的标准差)。"""
    with torch.no_grad():
        x = model.characters(ids) + model.positions(torch.arange(ids.shape[1]))  # [B, T, C]
        b0 = model.blocks[0]
        attn = b0.attention(b0.norm1(x))
        mlp = b0.mlp(b0.norm2(x + attn))
        ratios = [(attn.norm() / x.norm()).item(), (mlp.norm() / (x + attn).norm()).item()]
        z, stds = x, [x.std().item()]
        for block in model.blocks:
            z = block(z)
            stds.append(z.std().item())
    return list(x.shape), ratios, stds


def _draw_residual_stream(n: int, ratios: list[float], stds: list[float]) -> tuple[int, int, list[str]]:
    """画 n 个 Block 的残差流示意图，标出第一层修改的大小之比与每层后的标准差。返回 (宽, 高, SVG 片段)。"""
    width, height, left = 640, 250, 30
    seg = (width - left - 60) / n
    line_y = 70
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            20,
            "残差流（粗线）穿过 4 个 Block；每个 Block：norm1 → attention → 加回，norm2 → mlp → 加回",
            12,
            fill=MUTED,
        ),
        f'<line x1="{left}" y1="{line_y}" x2="{width - 30}" y2="{line_y}" stroke="#8c2f1b" stroke-width="5"/>',
        _text(width - 26, line_y + 5, "▶", 14, fill="#8c2f1b"),
    ]
    for i in range(n):
        x0 = left + 20 + i * seg
        for k, (norm, sub) in enumerate((("norm1", "attention"), ("norm2", "mlp"))):
            bx = x0 + k * seg / 2
            body.append(f'<line x1="{bx:.1f}" y1="{line_y}" x2="{bx:.1f}" y2="{line_y + 40}" stroke="{MUTED}"/>')
            body.append(
                f'<rect x="{bx - 4:.1f}" y="{line_y + 40}" width="{seg / 2 - 10:.1f}" height="44" rx="4" '
                f'fill="#fffdf8" stroke="#d9cfbd"/>'
            )
            body.append(_text(bx + seg / 4 - 9, line_y + 58, norm, 10, "middle", MUTED))
            body.append(_text(bx + seg / 4 - 9, line_y + 75, sub, 10, "middle"))
            end = bx + seg / 2 - 18
            body.append(f'<line x1="{end:.1f}" y1="{line_y + 40}" x2="{end:.1f}" y2="{line_y + 8}" stroke="{MUTED}"/>')
            body.append(_text(end, line_y + 5, "⊕", 14, "middle", "#8c2f1b"))
        body.append(_text(x0 - 6 + seg / 2 * 0, line_y - 14, f"层 {i}", 11, fill=MUTED))
    for i, s in enumerate(stds):
        xs = left + 6 + i * seg if i < n else width - 40
        body.append(
            _text(
                xs,
                height - 40 if i % 2 == 0 else height - 24,
                f"{'输入' if i == 0 else f'{i} 层后'} {s:.4f}",
                11,
                "start" if i < n else "end",
            )
        )
    body.append(
        _text(
            left,
            line_y + 104,
            f"层 0 加上的修改 / 残差流的大小：attention {ratios[0]:.4f}，mlp {ratios[1]:.4f}",
            11,
            fill="#8c2f1b",
        )
    )
    body.append(_text(12, height - 58, "残差流的标准差：", 11, fill=MUTED))
    return width, height, body


def lesson13() -> Chart:
    """与第 13 课实验相同的种子、新建模型与 8 首 val 诗：残差流穿过 4 个 Block，每层后的标准差；
    第一个 Block 里注意力、MLP 加上的修改有多大。"""
    from poetry_gpt.data import make_batch

    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)  # 与实验开头的 setup_experiment() 同一个种子
        tok = default_tokenizer()
        model = PoetryGPT(ModelConfig(vocab_size=len(tok))).eval()
    ids, _, _ = make_batch([encode_sample(p, tok) for p in load_poems("val")[:8]])  # [8, T]
    shape, ratios, stds = _residual_stream(model, ids)
    width, height, body = _draw_residual_stream(len(model.blocks), ratios, stds)
    steps = [
        f"与第 13 课实验一样：新建的默认模型（种子 {COURSE_SEED}，还没训练），val 里前 8 首诗排成一批，"
        f"查表加位置得到 [B, T, C] = {shape}，从左边进入残差流（粗线）。",
        "每个 Block 从残差流上分出两条支路：先 norm1（LayerNorm）归一化一份副本，注意力读它、算出修改，在 ⊕ 处加回；"
        "再 norm2 → mlp → 加回。残差流本身不被归一化，也不被替换。",
        f"第一个 Block 里，注意力加上的修改是残差流大小的 {ratios[0]:.4f}，MLP 的是 {ratios[1]:.4f}："
        "修改是加上去的，原来的残差流一个数也没丢。",
        "残差流的标准差一层层慢慢变大：" + " → ".join(f"{s:.4f}" for s in stds) + "。没有残差时信号会一层层缩没"
        "（实验表里“都没有”那一行），有了残差和 LayerNorm 才稳定。",
        "这种先归一化、再进子层的写法叫 pre-norm（GPT-2 起的做法）；最后还有一个 LayerNorm，之后才乘回输出层。",
    ]
    return Chart(
        "残差流与先归一化的 Block", _svg(width, height, "残差流穿过四个 Block 的示意图与每层后的标准差", body), steps
    )


# ---------- 第 14 课：参数都在哪 ----------


def lesson14() -> Chart:
    """默认配置的新建 PoetryGPT，parameter_counts() 各部分的参数个数（与第 14 课实验的表同一个函数）。"""
    tok = default_tokenizer()
    with torch.random.fork_rng():
        model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
    counts = model.parameter_counts()
    total = model.num_parameters()
    config = model.config
    width, row_h = 640, 30
    height = 44 + row_h * len(counts) + 10
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            20,
            f"默认配置：V = {config.vocab_size}，C = {config.width}，{config.n_layers} 层；"
            f"共 {total} 个参数（输出层与 characters 共用一张表，不另算）",
            12,
            fill=MUTED,
        ),
    ]
    top = max(counts.values())
    for i, (name, n) in enumerate(counts.items()):
        y = 36 + i * row_h
        w = (width - 280) * n / top
        body.append(_text(120, y + 19, name, 13, "end", weight="bold" if n == top else "normal"))
        body.append(
            f'<rect x="128" y="{y + 5}" width="{max(w, 1.5):.1f}" height="{row_h - 10}" rx="2" '
            f'fill="{"#8c2f1b" if n == top else "#c9a27e"}"/>'
        )
        body.append(_text(128 + max(w, 1.5) + 6, y + 19, f"{n}（{n / total:.1%}）", 12, fill=MUTED))
    share = lambda k: f"{counts[k] / total:.1%}"  # noqa: E731
    steps = [
        f"每根横条是模型的一部分，长度是参数个数，由 PoetryGPT.parameter_counts() 数出来，合计 {total}"
        f"（= num_parameters()）。",
        f"最大的是汉字表 characters：V × C = {config.vocab_size} × {config.width} = {counts['characters']}，"
        f"占 {share('characters')}。字表大、模型窄，所以一半多的参数都在查表上。",
        f"{config.n_layers} 个 Block 里，mlp 共 {counts['mlp']}（{share('mlp')}），attention 共 {counts['attention']}"
        f"（{share('attention')}）：MLP 先放宽到 4C 再收回，参数约是注意力的两倍。",
        f"positions 只有 L × C = {config.context_length} × {config.width} = {counts['positions']}，"
        f"norms（各层 LayerNorm 的缩放与偏移）{counts['norms']}，都不到 1%。",
        f"输出层 head 与 characters 是同一张表：如果另开一张，参数会多 {counts['characters']} 个。",
    ]
    return Chart("默认模型的参数都在哪", _svg(width, height, "PoetryGPT 各部分参数个数的横条", body), steps)
