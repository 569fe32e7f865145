"""第 25、26 课的插图：评估表里模型对照人写的诗，参数预算花在哪里。"""

from __future__ import annotations

import functools

import torch

from poetry_gpt.data import default_tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT

from .draw import MUTED, Chart, _bars, _svg, _text

# ---------- 第 25 课：评估表里的几行，模型对照人写的诗 ----------

EVAL_ROWS = (
    ("rhyme", "押韵（两字不同）"),
    ("tone_score", "平仄得分（宽式）"),
    ("nian_dui", "粘对全合"),
    ("char_3", "有字用了 3 次以上"),
)
"""第 25 课的图画 ./poet eval 记录里的这几行（键, 名字）。"""


def lesson25() -> Chart:
    """记下的 ./poet eval（results/eval.json、eval-plain.json，构建时不重跑评估）：
    默认解码、--plain 与 val 里人写的诗，五言、七言各一组横条。"""
    from poetry_gpt.common import ROOT, read_json

    default = read_json(ROOT / "results" / "eval.json")
    plain = read_json(ROOT / "results" / "eval-plain.json")
    sources = [("默认", default["reader"]), ("--plain", plain["reader"]), ("人写", default["human"])]
    pane_w, row_h = 300, 21
    pane_h = 24 + 2 * len(sources) * row_h + 10
    width, height = 2 * pane_w + 36, 2 * pane_h + 16
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>']
    for i, (key, name) in enumerate(EVAL_ROWS):
        x, y = 12 + (i % 2) * (pane_w + 12), 8 + (i // 2) * pane_h
        body.append(_text(x, y + 14, name, 13, weight="bold"))
        rows = [
            (f"{form} {who}", table[form][key], who == "人写") for form in ("五言", "七言") for who, table in sources
        ]
        _bars(body, x, y + 22, rows, pane_w - 150, 1.0, row_h, 90)
    r = lambda src, key: " / ".join(f"{src[f][key]:.3f}" for f in ("五言", "七言"))  # noqa: E731
    steps = [
        f"数来自记下的 ./poet eval --json（results/eval.json）与 ./poet eval --plain --json（eval-plain.json）："
        f"{default['prompts']} 个提示写的诗，每种体裁 {default['reader']['五言']['poems']} 首；"
        f"人写的是 val 里五言、七言各 {default['human']['五言']['poems']} 首。构建网站时不重跑评估。",
        "每一格是评估表的一行，每组六根横条：五言、七言各三根——默认解码、关掉诗律规则的 --plain、人写（描红）。"
        "横条画满是 1。",
        f"押韵（两字不同）：默认 {r(default['reader'], 'rhyme')}，--plain {r(plain['reader'], 'rhyme')}，"
        f"人写 {r(default['human'], 'rhyme')}。默认的 100% 是解码器在句尾只许押韵的字做到的。",
        f"平仄（宽式）：默认 {r(default['reader'], 'tone_score')}，--plain {r(plain['reader'], 'tone_score')}，"
        f"人写 {r(default['human'], 'tone_score')}；粘对全合：人写 {r(default['human'], 'nian_dui')}。",
        f"有字用了 3 次以上（越短越好）：默认 {r(default['reader'], 'char_3')}，--plain {r(plain['reader'], 'char_3')}，"
        f"人写 {r(default['human'], 'char_3')}：关掉重复控制，模型一大半的诗都在反复用同一个字。",
    ]
    return Chart("评估表：模型对照人写的诗", _svg(width, height, "评估表几行的横条：默认、--plain 与人写", body), steps)


# ---------- 第 26 课：参数预算花在哪里 ----------

BUDGETS = (250_000, 500_000, 1_000_000, 1_655_552, 3_000_000, 10_000_000)
"""第 26 课实验第 1 部分的参数预算（前文长度 64、4 层、4 头）。"""


def _sized(width: int, n_layers: int = 4, n_heads: int = 4) -> PoetryGPT:
    """只为数参数建的模型（默认汉字表与前文长度）。"""
    with torch.random.fork_rng():
        return PoetryGPT(
            ModelConfig(vocab_size=len(default_tokenizer()), width=width, n_layers=n_layers, n_heads=n_heads)
        )


@functools.cache
def _count_formula(n_layers: int, n_heads: int) -> tuple[float, float, float]:
    """num_parameters() 是宽度 C 的二次式 aC² + bC + c（表 V·C、L·C，每层 12C² + 13C，最后的 LayerNorm 2C）：
    用三个小模型的 num_parameters() 定出 (a, b, c)。"""
    xs = [n_heads, 2 * n_heads, 3 * n_heads]
    ys = [_sized(x, n_layers, n_heads).num_parameters() for x in xs]
    a = (ys[2] - 2 * ys[1] + ys[0]) / (2 * n_heads**2)  # 二阶差分
    b = (ys[1] - ys[0]) / n_heads - a * (xs[0] + xs[1])
    return a, b, ys[0] - a * xs[0] ** 2 - b * xs[0]


def _model_for(budget: int, n_layers: int = 4, n_heads: int = 4) -> PoetryGPT:
    """宽度能被头数整除、num_parameters() 不超过预算的最大模型（第 26 课的练习）；
    宽度按二次式解，只建选中的那一个，并核对它的参数个数。"""
    a, b, c = _count_formula(n_layers, n_heads)
    count = lambda w: round(a * w * w + b * w + c)  # noqa: E731
    width = n_heads
    while count(width + n_heads) <= budget:
        width += n_heads
    model = _sized(width, n_layers, n_heads)
    assert model.num_parameters() == count(width) <= budget, "参数个数不是宽度的二次式"
    return model


def lesson26() -> Chart:
    """每个预算选出的宽度，参数分成字向量表、位置表、全部 Block 三段（各段用 PoetryGPT 的参数数出来）。"""
    rows = []
    for budget in BUDGETS:
        model = _model_for(budget)
        total = model.num_parameters()
        parts = [
            model.characters.weight.numel(),
            model.positions.weight.numel(),
            sum(p.numel() for p in model.blocks.parameters()),
        ]
        rows.append((budget, model.config.width, total, parts))
    width, row_h, left = 640, 40, 110
    height = 48 + row_h * len(rows) + 30
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            20,
            f"每个预算选出的宽度 C（4 层、4 头、L = {model.config.context_length}）；每条按份额分成三段",
            12,
            fill=MUTED,
        ),
    ]
    colors = ("#8c2f1b", "#2f5d8c", "#c9a27e")
    bar_w = width - left - 20
    for i, (budget, C, total, parts) in enumerate(rows):
        y = 34 + i * row_h
        body.append(_text(left - 8, y + 14, f"{budget:,}", 12, "end", weight="bold"))
        body.append(_text(left - 8, y + 29, f"C = {C}", 11, "end", MUTED))
        x = left
        for part, color in zip(parts, colors):
            w = bar_w * part / total
            body.append(f'<rect x="{x:.1f}" y="{y + 4}" width="{w:.1f}" height="{row_h - 14}" fill="{color}"/>')
            x += w
        body.append(_text(left + 6, y + 22, f"{parts[0] / total:.0%}", 11, fill="#fffdf8"))
        body.append(_text(left + bar_w - 6, y + 22, f"{parts[2] / total:.0%}", 11, "end"))
    y = 34 + len(rows) * row_h + 12
    for k, (name, color) in enumerate(zip(("字向量表 V·C", "位置表 L·C", "全部 Block"), colors)):
        body.append(f'<rect x="{left + k * 150}" y="{y - 10}" width="12" height="12" fill="{color}"/>')
        body.append(_text(left + k * 150 + 18, y, name, 12))
    share = {b: parts[0] / total for b, _, total, parts in rows}
    steps = [
        "每一行是一个参数预算：先找出能被头数 4 整除、参数个数（PoetryGPT.num_parameters()）不超过预算的最大宽度 C，"
        "再把这个模型的参数分成字向量表、位置表和全部 Block 三段，按份额画成一条。",
        f"预算小时，大半参数在字向量表里：25 万的预算只能给 C = {rows[0][1]}，字向量表占 {share[BUDGETS[0]]:.0%}，"
        "真正做计算的 Block 只分到一小段。",
        f"表的大小随 C 线性增长（V·C），Block 随 C² 增长（每层约 12C²），预算越大 Block 越占上风："
        f"1000 万时 C = {rows[-1][1]}，Block 占 {rows[-1][3][2] / rows[-1][2]:.0%}。",
        f"随课程的默认模型 C = 128 正好用掉 {BUDGETS[3]:,} 个参数，字向量表 {share[BUDGETS[3]]:.0%}，大约一半一半。",
        "位置表 L·C 一直不到 1%（蓝色的细条）。",
    ]
    return Chart("参数预算花在哪里", _svg(width, height, "不同参数预算下字向量表、位置表与 Block 的份额", body), steps)
