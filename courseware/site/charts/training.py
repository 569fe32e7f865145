"""第 15–17、19 课（训练）的插图：一个位置的交叉熵、学习率日程、一个训练步、损失曲线。"""

from __future__ import annotations

import contextlib
import math

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.common import COURSE_SEED
from poetry_gpt.data import SEP, default_tokenizer, encode_sample, load_poems
from poetry_gpt.metrics import loss_curves
from poetry_gpt.model import ModelConfig, PoetryGPT

from .draw import MUTED, Chart, _bars, _dot, _plot, _polyline, _svg, _text

# ---------- 第 15 课：一个位置的交叉熵 ----------


def lesson15() -> Chart:
    """发布模型读 val 第一首诗（与第 15 课实验同一首、同一格）：前 8 个字与正确答案的概率，损失是 −ln p(答案)。"""
    from poetry_gpt.data import make_batch

    tok = default_tokenizer()
    model, _ = load_model()
    poem = load_poems("val", 512)[0]
    ids = encode_sample(poem, tok)
    x, y, _ = make_batch([ids])  # [1, T]
    t = ids.index(SEP) + 1  # 正文第 1 个字读完，猜第 2 个
    with torch.no_grad():
        z = model(x[:, : t + 1])[0][0, t]  # [V]：因果模型，后文不影响这一格
    log_probs = torch.log_softmax(z, -1)
    answer = int(y[0, t])
    order = torch.topk(z, 8).indices.tolist()
    rank = int((z > z[answer]).sum()) + 1
    shown = order + ([answer] if answer not in order else [])
    width, row_h = 640, 24
    height = 46 + row_h * (len(shown) + 1) + 10
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            20,
            f"读到 {tok.decode(ids[: t + 1])}，下一个字的概率 p（softmax(logits)）；"
            f"红条是正确答案“{tok.tokens[answer]}”",
            12,
            fill=MUTED,
        ),
    ]
    scale = log_probs.exp().max().item()
    rows = [(tok.tokens[j], log_probs[j].exp().item(), j == answer) for j in shown]
    gap = int(answer not in order)  # 答案不在前 8：中间空一行写 ⋮
    _bars(body, 12, 34, rows[: len(order)], width - 260, scale, row_h, 40, 4)
    _bars(body, 12, 34 + (len(order) + gap) * row_h, rows[len(order) :], width - 260, scale, row_h, 40, 4)
    if gap:
        body.append(_text(46, 34 + len(order) * row_h + 15, "⋮", 13, "end", MUTED))
    for i, j in enumerate(shown):
        y = 34 + (i + (gap if j == answer else 0)) * row_h + 15
        body.append(
            _text(width - 12, y, f"−ln p = {-log_probs[j].item():.4f}", 11, "end", "#8c2f1b" if j == answer else MUTED)
        )
    loss = -log_probs[answer].item()
    steps = [
        f"发布模型读 val 第一首诗“{poem['text']}”的样本，到位置 {t}（{tok.decode(ids[: t + 1])}）为止，要猜下一个字，"
        f"正确答案是“{tok.tokens[answer]}”。",
        f"模型给 V = {len(tok)} 个编号各一个分数 logits，softmax 变成概率 p。横条是概率最高的 8 个字："
        f"“{tok.tokens[order[0]]}” {log_probs[order[0]].exp().item():.4f} 最高。",
        f"正确答案“{tok.tokens[answer]}”排第 {rank} 名，p = {log_probs[answer].exp().item():.4f}（红条）。",
        f"这个位置的损失只看答案那一格：−ln p = {loss:.4f} 奈特。p 越大损失越小，p = 1 时为 0；"
        "别的字的概率只通过“加起来是 1”影响它。",
        "一批里的损失是计入损失的每一格的 −ln p 求平均（条件区与补齐的格子不算），训练时就是把这个平均往下推。",
    ]
    return Chart("一个位置的交叉熵", _svg(width, height, "一个位置上前 8 个字与正确答案的概率横条", body), steps)


# ---------- 第 16 课：预热加余弦的学习率日程 ----------


def lesson16() -> Chart:
    """base 预设的 learning_rate(step)：第 0–3000 步，标出实验表里的几个关键步。"""
    from poetry_gpt.train import learning_rate
    from poetry_gpt.train_config import PRESETS

    base = PRESETS["base"]
    last = 3000  # 与实验的图一样画到第 3000 步
    low = base.lr * base.min_lr_ratio
    points = [(s, learning_rate(s, base)) for s in range(0, last + 1, 10)]
    width, height = 640, 300
    X, Y, body = _plot(width, height, (0, last), (0, base.lr), margin=(34, 16, 40, 64))
    for v in (0, low, base.lr / 2, base.lr):
        body.append(_text(58, Y(v) + 4, f"{v:.4g}", 11, "end", MUTED))
        body.append(f'<line x1="64" y1="{Y(v):.1f}" x2="{width - 16}" y2="{Y(v):.1f}" stroke="#e2d8c6"/>')
    body.append(_polyline(points, X, Y, "#8c2f1b"))
    warm_end, middle = base.warmup - 1, base.warmup + (base.steps - base.warmup) // 2
    marks = [
        (warm_end, "预热结束：峰值", 10, -8, "start"),
        (middle, "余弦走了一半", 10, -10, "start"),
        (base.steps, "降到最低值", -6, 17, "end"),
    ]
    for step, label, dx, dy, anchor in marks:
        lr = learning_rate(step, base)
        body.append(_dot(X(step), Y(lr)))
        body.append(_text(X(step) + dx, Y(lr) + dy, f"第 {step} 步 {lr:.6g}（{label}）", 11, anchor))
    for step in (0, 1000, 2000, last):
        body.append(_text(X(step), height - 22, str(step), 11, "middle", MUTED))
    body.append(_text(width - 16, height - 6, "第几步（从 0 数）", 11, "end", MUTED))
    body.append(_text(12, 14, "学习率", 11, fill=MUTED))
    steps = [
        f"横轴是第几步（从 0 数），纵轴是这一步的学习率，都由 poetry_gpt.train.learning_rate 按 base 预设算出："
        f"峰值 lr = {base.lr:g}，预热 {base.warmup} 步，共 {base.steps} 步。",
        f"预热：第 0 步是 lr/warmup = {learning_rate(0, base):.6g}（不是 0），之后每步加一点，"
        f"第 {warm_end} 步正好到峰值 {learning_rate(warm_end, base):.6g}。开头这一段太陡，图上几乎是一条竖线。",
        f"余弦：从第 {base.warmup} 步起按余弦往下走，第 {middle} 步走了一半，学习率 {learning_rate(middle, base):.6g}，"
        "正好在峰值与最低值的正中间。",
        f"最低值：第 {base.steps} 步降到 lr × min_lr_ratio = {low:g}；再往后（续训）一直停在这里。",
        "为什么这样排：开头模型的参数是随机的，大步走容易走飞，所以先慢后快；快结束时步子放小，损失才稳稳地落下来。",
    ]
    return Chart("base 预设的学习率日程", _svg(width, height, "学习率随步数变化的曲线", body), steps)


@contextlib.contextmanager
def _one_thread():
    """tiny 尺寸的小模型在一个计算线程上训练：矩阵太小，两个线程分不到活，反而互相空等
    （机器上另有进程在算时，两个线程能慢上几倍）。结束后恢复原来的线程数。"""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


# ---------- 第 17 课：一个训练步 ----------


def _first_step(batch: list[list[int]], model_config: ModelConfig, optimizer_for, clip: float) -> dict:
    """与第 17 课实验一样：种子 26 新建模型，对一批样本做一次前向、反向，按总范数裁剪到 clip，再更新一步。
    返回损失、每个参数张量裁剪前的梯度范数、clip_grad_norm_ 返回的总范数、裁剪后的总范数，
    以及 optimizer.step() 有没有改动位置表。不动全局的随机数状态。"""
    from poetry_gpt.data import make_batch
    from poetry_gpt.loss import scored_loss

    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)
        model = PoetryGPT(model_config).train()
    optimizer = optimizer_for(model)
    optimizer.zero_grad(set_to_none=True)
    with _one_thread():
        loss = scored_loss(model, *make_batch(batch))
        loss.backward()
    norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), clip).item()
    clipped = torch.cat([p.grad.flatten() for p in model.parameters()]).norm().item()
    before = model.positions.weight.detach().clone()
    optimizer.step()
    return {
        "loss": loss.item(),
        "norms": norms,
        "total": total,
        "clipped": clipped,
        "moved": not torch.equal(before, model.positions.weight),
    }


def _piece_rows(body: list[str], top: float, width: int, row_h: int, pieces: list[tuple[str, str]]) -> None:
    """训练步的每一段一行：pieces 是 (哪一段, 这一步里的真实数)，裁剪那一段用红字。"""
    for i, (name, what) in enumerate(pieces):
        y = top + i * row_h
        body.append(
            f'<rect x="12" y="{y}" width="{width - 24}" height="{row_h - 4}" rx="3" fill="#fffdf8" stroke="#d9cfbd"/>'
        )
        body.append(_text(22, y + 15, name, 12, weight="bold"))
        body.append(_text(96, y + 15, what, 12, fill="#8c2f1b" if name.startswith("⑤") else "#2b2620"))


def _clip_panels(
    body: list[str], y: float, width: int, panels: list[tuple[str, list[tuple[str, float]], dict]], clip: float
) -> None:
    """从 y 起一组接一组的梯度范数横条：panels 是 (标题, [(参数, 范数)], _first_step 的结果)，每组末尾是总范数
    （超过上限 clip 描红），虚线是 clip，右边写裁剪的结果。各组刻度相同。"""
    scale = max(run["total"] for *_, run in panels)
    bar_w = width - 12 - 200 - 230  # 右边留出写“全部 × …”的地方
    for title, bars, run in panels:
        body.append(_text(12, y + 14, title, 11, fill=MUTED))
        over = run["total"] > clip
        rows = [(name, v, False) for name, v in bars] + [("总范数", run["total"], over)]
        drawn = _bars(body, 12, y + 20, rows, bar_w, scale, 22, 200, 4)
        x_clip = 12 + 200 + bar_w * clip / scale
        body.append(
            f'<line x1="{x_clip:.1f}" y1="{y + 20}" x2="{x_clip:.1f}" y2="{y + 20 + drawn}" stroke="#2f5d8c" '
            f'stroke-dasharray="4 3"/>'
        )
        verdict = f"> {clip}：全部 × {clip / run['total']:.4f} → {run['clipped']:.4f}" if over else f"≤ {clip}：原样"
        body.append(_text(width - 12, y + 20 + drawn - 7, verdict, 12, "end", "#8c2f1b" if over else MUTED))
        y += 24 + 5 * 22


def _draw_first_step(
    tiny,
    pieces: list[tuple[str, str]],
    top_run: tuple[dict, list[tuple[str, float]]],
    bottom_run: tuple[dict, list[float]],
) -> tuple[int, int, list[str]]:
    """第 17 课的图：训练步的七段（pieces，见 _piece_rows），下面两组梯度范数横条。
    tiny 是 train_config.PRESETS["tiny"]；top_run 是它的第 0 步（_first_step 的结果, 最大的几个 (参数, 范数)），
    bottom_run 是实验第 3 部分的第 0 步（结果, 最大的几个范数）。返回 (宽, 高, SVG 片段)。"""
    (one, bars_a), (small, bars_b) = top_run, bottom_run
    clip = tiny.grad_clip
    width, row_h, top = 680, 24, 38
    panel_top = top + len(pieces) * row_h + 30
    height = panel_top + 2 * (24 + 5 * 22) + 24
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            20,
            f"tiny 预设（{tiny.model['n_layers']} 层、宽 {tiny.model['width']}）新建模型的第 0 步，种子 {COURSE_SEED}",
            12,
            fill=MUTED,
        ),
    ]
    _piece_rows(body, top, width, row_h, pieces)
    body.append(
        _text(
            12,
            panel_top - 8,
            f"裁剪看的是总范数 √(Σ 各参数范数²)，不是每个参数各自的范数（上限 {clip}）",
            12,
            weight="bold",
        )
    )
    panels = [
        (f"上：tiny 第 0 步，{len(one['norms'])} 个参数张量里最大的 4 个", [(n, v) for n, v in bars_a], one),
        (
            "下：实验第 3 部分（8 首诗、宽 64、2 层）第 0 步，最大的 3 个",
            [(f"第 {k + 1} 大", v) for k, v in enumerate(bars_b)],
            small,
        ),
    ]
    _clip_panels(body, panel_top, width, panels, clip)
    body.append(_text(12, height - 10, f"虚线：上限 {clip}", 11, fill="#2f5d8c"))
    return width, height, body


def lesson17() -> Chart:
    """第 17 课实验的第 0 步：tiny 预设取第 0 批（batch_indices）、前向、反向、裁剪、更新，每一段的真实数；
    再对照实验第 3 部分（8 首诗、宽 64 的两层模型）第 0 步：单个参数的梯度范数都不到 1.0，总范数却超过 1.0 被裁剪。"""
    from poetry_gpt.batches import batch_indices, encode_split
    from poetry_gpt.data import make_batch
    from poetry_gpt.train import learning_rate, make_optimizer
    from poetry_gpt.train_config import PRESETS

    tok = default_tokenizer()
    tiny = PRESETS["tiny"]
    samples = encode_split("train", tok, tiny.train_poems)
    first = batch_indices(0, len(samples), tiny.batch_size, tiny.seed)
    batch = [samples[i] for i in first]
    x, _, _ = make_batch(batch)
    one = _first_step(
        batch, ModelConfig(vocab_size=len(tok), **tiny.model), lambda m: make_optimizer(m, tiny), tiny.grad_clip
    )
    small = _first_step(
        batch[:8],
        ModelConfig(vocab_size=len(tok), context_length=48, width=64, n_layers=2, n_heads=2),
        lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2, betas=(0.9, 0.95), weight_decay=0.0),
        1.0,
    )
    clip, lr0 = tiny.grad_clip, learning_rate(0, tiny)
    pieces = [
        (
            "① 取批",
            f"batch_indices(0, {len(samples)}, {tiny.batch_size}, {tiny.seed}) → 样本 "
            + ", ".join(map(str, first[:4]))
            + f" …；x, y, mask {list(x.shape)}",
        ),
        ("② 学习率", f"learning_rate(0) = {lr0:g}（预热第 0 步：lr / warmup）"),
        ("③ 前向", f"scored_loss → 损失 {one['loss']:.4f} 奈特/字"),
        ("④ 反向", f"loss.backward() → {len(one['norms'])} 个参数张量各有 .grad"),
        ("⑤ 裁剪", f"总范数 {one['total']:.4f} ≤ {clip} → 梯度原样不动"),
        ("⑥ 更新", "optimizer.step()（AdamW）→ 位置表" + ("变了" if one["moved"] else "没变")),
        ("⑦ 清零", "optimizer.zero_grad(set_to_none=True)，下一步的 backward 从头累加"),
    ]
    bars_a = sorted(one["norms"].items(), key=lambda kv: -kv[1])[:4]
    bars_b = sorted(small["norms"].values(), reverse=True)[:3]
    width, height, body = _draw_first_step(tiny, pieces, (one, bars_a), (small, bars_b))
    steps = [
        f"① 取批：tiny 预设从 train 取 {len(samples)} 条样本，每步 {tiny.batch_size} 首；第 0 步是 "
        f"batch_indices(0, …) 给出的样本 {', '.join(map(str, first[:8]))} ……，排成 x、y、mask，形状 {list(x.shape)}。"
        "第几步取哪些诗只由步数和种子决定。",
        f"② 学习率：train 每一步先按第 16 课的日程写进优化器；第 0 步在预热里，是 lr / warmup = {lr0:g}。",
        f"③ 前向：新建的模型（种子 {COURSE_SEED}）在这一批上的损失是 {one['loss']:.4f} 奈特/字，接近 ln V = "
        f"{math.log(len(tok)):.4f}：还什么都没学。",
        f"④ 反向：backward() 给 {len(one['norms'])} 个参数张量都算出 .grad；梯度范数最大的是 "
        + "、".join(f"{n} {v:.4f}" for n, v in bars_a[:3])
        + "。",
        f"⑤ 裁剪：总范数 √(Σ 各参数范数²) = {one['total']:.4f}，不到上限 {clip}，梯度原样不动"
        f"（各参数范数直接相加是 {sum(one['norms'].values()):.4f}，那不是总范数）。",
        f"对照下面那组：实验第 3 部分的模型第 0 步（损失 {small['loss']:.4f}），最大的三个参数范数 "
        + "、".join(f"{v:.4f}" for v in bars_b)
        + f" 都不到 {clip}，合起来的总范数却是 {small['total']:.4f}，"
        f"所以每个梯度都乘 {clip} / {small['total']:.4f} = {clip / small['total']:.4f}，裁剪后总范数 {small['clipped']:.4f}："
        "方向不变，只是步子短了。",
        "⑥ 更新：AdamW 用（可能被缩小的）梯度改参数，位置表这一步就变了。⑦ 清零：梯度会累加，更新完就扔掉，"
        "下一步的 backward 从头算。",
    ]
    return Chart("一个训练步", _svg(width, height, "训练一步的七段与梯度裁剪的横条图", body), steps)


# ---------- 第 19 课：训练与验证损失 ----------


def lesson19() -> Chart:
    """发布模型存档里的训练日志：每步的训练损失与每隔一段的验证损失（奈特/字）。"""
    curves = loss_curves()
    train, val = curves["train"], curves["val"]
    width, height, left, top, right, bottom = 640, 300, 48, 18, 16, 36
    x_max = max(s for s, _ in train)
    y_lo = min(v for _, v in train + val)
    y_hi = min(max(v for _, v in train + val), y_lo + 6)
    X = lambda s: left + (width - left - right) * s / x_max
    Y = lambda v: top + (height - top - bottom) * (1 - (min(v, y_hi) - y_lo) / (y_hi - y_lo))
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#6b6155"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#6b6155"/>',
    ]
    for v in range(int(y_lo) + 1, int(y_hi) + 1):
        body.append(_text(left - 6, Y(v) + 4, str(v), 11, "end", "#6b6155"))
    body.append(_text(width - right, height - 10, f"步数（共 {x_max}）", 11, "end", "#6b6155"))
    # 训练损失每步一个点，太密：每 10 步取平均
    smooth = [
        (train[i][0], sum(v for _, v in train[i : i + 10]) / len(train[i : i + 10])) for i in range(0, len(train), 10)
    ]
    for points, color, name in ((smooth, "#c9a27e", "训练"), (val, "#8c2f1b", "验证")):
        path = " ".join(f"{X(s):.1f},{Y(v):.1f}" for s, v in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
    body.append(_text(width - right - 4, top + 12, "浅色：训练（10 步平均）；深色：验证", 11, "end"))
    # 本课的要点：验证损失最低的一次（并列取最早的，与实验的 lowest 相同）就是开始过拟合的一步
    best_step, best_val = min(val, key=lambda p: p[1])
    later = [v for s, v in val if s > best_step]
    near_best = next(v for s, v in smooth if s >= best_step)  # 训练损失（10 步平均）在最低点那里
    label_y = Y(best_val) - 40  # 标签写在两条曲线上方，竖的虚线从标签经过红点落到横轴
    body.append(
        f'<line x1="{X(best_step):.1f}" y1="{label_y - 4:.1f}" x2="{X(best_step):.1f}" y2="{height - bottom}" '
        'stroke="#8c2f1b" stroke-dasharray="3 3"/>'
    )
    body.append(_dot(X(best_step), Y(best_val)))
    label = f"验证最低 {best_val:.3f}（第 {best_step} 步）"
    body.append(_text(X(best_step) - 6, label_y, label, 11, "end", "#8c2f1b", "bold"))
    steps = [
        f"横轴是训练步数，纵轴是交叉熵（奈特/字）。训练损失从第 1 步的 {train[0][1]:.1f} 开始快速下降。",
        f"验证损失从第 {val[0][0]} 步的 {val[0][1]:.2f} 降到第 {val[-1][0]} 步的 {val[-1][1]:.2f}。",
        f"红点是验证损失最低的一次：第 {best_step} 步，{best_val:.3f}。之后的 {len(later)} 次验证没有一次更低"
        f"（最后一次是 {val[-1][1]:.3f}），训练损失（10 步平均）却从 {near_best:.2f} 降到 {smooth[-1][1]:.2f}："
        f"按本课的定义，第 {best_step} 步就是开始过拟合的一步。",
        f"训练损失最后 10 步平均 {smooth[-1][1]:.2f}；两条线靠得越近，过拟合越轻。",
    ]
    return Chart("发布模型的损失曲线", _svg(width, height, "训练与验证损失曲线", body), steps)
