"""第 18 课的插图：不中断与续训的损失逐步相同，少放回一部分状态就岔开，存档里各部分的大小。"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch

from poetry_gpt.checkpoint import stored_sizes

from .draw import MUTED, Chart, _plot, _polyline, _svg, _text
from .training import _one_thread

# ---------- 第 18 课：存档里装着训练的全部记忆 ----------


@functools.cache
def _resume_runs() -> dict:
    """与第 18 课实验第 1、3 部分同样的小训练（tiny 尺寸、dropout 0.1、16 步、每 8 步验证并存档）：
    不中断的一次；第 8 步停下、存档、再续训的一次；从第 8 步的存档续训，但不放回优化器状态、不放回随机数状态各一次。
    返回每次的日志（每步一条）与第 8 步的存档。在临时目录里训练，不动全局的随机数状态。
    少放回一部分状态的续训与实验调用同一个 train.resume_without。"""
    import random
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    from poetry_gpt.checkpoint import read_checkpoint
    from poetry_gpt.train import resume_without, train
    from poetry_gpt.train_config import PRESETS

    tiny = PRESETS["tiny"]
    config = replace(
        tiny,
        model=dict(tiny.model, dropout=0.1),
        steps=16,
        warmup=4,
        batch_size=16,
        eval_every=8,
        eval_poems=32,
        train_poems=512,
    )
    python_state = random.getstate()
    with torch.random.fork_rng(), _one_thread(), tempfile.TemporaryDirectory(prefix="site-lesson18-") as tmp:
        work = Path(tmp)
        straight = train(config, work / "straight", progress=False).log
        train(config, work / "resumed", stop_at=8, progress=False)
        state = read_checkpoint(work / "resumed" / "checkpoint.pt")
        resumed = train(config, work / "resumed", resume=True, progress=False).log
        logs = {name: resume_without(state, part, config, work / part).log for name, part in _LEFT_OUT.items()}
    random.setstate(python_state)
    return {"config": config, "straight": straight, "resumed": resumed, "variants": logs, "state": state}


_LEFT_OUT = {"不放回优化器状态": "optimizer", "不放回随机数状态": "rng"}
"""少放回一部分状态的两次续训：图例里的名字 → resume_without 的 part。"""

_STYLES = {"不放回优化器状态": ("#2f5d8c", "5 3"), "不放回随机数状态": (MUTED, "2 3")}
"""少放回一部分状态的两次续训：(线的颜色, stroke-dasharray)。"""


def _circle(x: float, y: float) -> str:
    """续训那一次的点：空心圆圈。"""
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#fbf8f1" stroke="#2b2620"/>'


def _curve(log: list[dict]) -> list[tuple[int, float]]:
    """训练日志 → 每一步的 (步数, 训练损失)。"""
    return [(e["step"], e["loss"]) for e in log]


def _loss_panel(runs: dict, width: int, plot_h: int, right: int) -> tuple[Callable[[float], float], list[str]]:
    """上面一块：每一次训练每一步的训练损失，右边是图例与最后一步的损失。返回 (步数 → 横坐标, body)。"""
    config, straight, resumed, variants = runs["config"], runs["straight"], runs["resumed"], runs["variants"]
    stop = runs["state"]["step"]
    losses = [e["loss"] for log in [straight, resumed, *variants.values()] for e in log]
    y_lo, y_hi = math.floor(min(losses) * 2) / 2, math.ceil(max(losses) * 2) / 2
    X, Y, body = _plot(width, plot_h, (1, config.steps), (y_lo, y_hi), margin=(30, right, 34, 48))
    body.append(
        _text(
            12,
            16,
            f"tiny 尺寸、dropout {config.model['dropout']}，{config.steps} 步，每步 {config.batch_size} 首诗："
            "每一步的训练损失（奈特/字）",
            12,
            fill=MUTED,
        )
    )
    v = y_lo
    while v <= y_hi + 1e-9:
        body.append(_text(42, Y(v) + 4, f"{v:g}", 11, "end", MUTED))
        v += 0.5
    for s in (1, stop, config.steps):
        body.append(_text(X(s), plot_h - 18, str(s), 11, "middle", MUTED))
    body.append(
        f'<line x1="{X(stop):.1f}" y1="30" x2="{X(stop):.1f}" y2="{plot_h - 34}" stroke="#c9a27e" '
        f'stroke-dasharray="3 3"/>'
    )
    body.append(_text(X(stop) + 4, 42, f"第 {stop} 步：存档、退出、读档", 11, fill=MUTED))
    body.append(_polyline(_curve(straight), X, Y, "#8c2f1b", 3))
    for name, log in variants.items():
        color, dash = _STYLES[name]
        body.append(_polyline([(stop, straight[stop - 1]["loss"])] + _curve(log[stop:]), X, Y, color, 1.5, dash))
    for s, loss in _curve(resumed):
        body.append(_circle(X(s), Y(loss)))
    legend = [
        ("#8c2f1b", "", "不中断（粗线）"),
        ("", "", "续训（圆圈）"),
        (*_STYLES["不放回优化器状态"], "不放回优化器状态"),
        (*_STYLES["不放回随机数状态"], "不放回随机数状态"),
    ]
    for i, (color, dash, name) in enumerate(legend):
        y = 50 + i * 20
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        body.append(
            f'<line x1="{width - 170}" y1="{y}" x2="{width - 146}" y2="{y}" stroke="{color}" stroke-width="2"{extra}/>'
            if color
            else _circle(width - 158, y)
        )
        body.append(_text(width - 140, y + 4, name, 11))
    last = config.steps - 1
    body.append(_text(width - 170, 50 + 4 * 20 + 8, f"第 {config.steps} 步的损失：", 11, fill=MUTED))
    for i, (name, log) in enumerate([("不中断", straight), ("续训", resumed), *variants.items()]):
        body.append(_text(width - 170, 50 + 4 * 20 + 26 + i * 16, f"{name[:6]} {log[last]['loss']:.5f}", 11))
    return X, body


def _gap_panel(
    body: list[str], runs: dict, X: Callable[[float], float], width: int, plot_h: int, diff_h: int, right: int
) -> None:
    """下面一块：第 stop 步以后，每一次的损失减去不中断那次的损失（上面的线挨得太近，看不出来）。"""
    config, straight, resumed, variants = runs["config"], runs["straight"], runs["resumed"], runs["variants"]
    stop = runs["state"]["step"]
    gaps = {
        name: [(stop, 0.0)] + [(e["step"], e["loss"] - a["loss"]) for a, e in zip(straight[stop:], log[stop:])]
        for name, log in [("续训", resumed), *variants.items()]
    }
    reach = max(abs(d) for points in gaps.values() for _, d in points)
    y0, inner_top, inner_bottom = plot_h + 14, plot_h + 40, plot_h + diff_h - 16
    XD = lambda s: X(1) + (X(config.steps) - X(1)) * (s - stop) / (config.steps - stop)  # noqa: E731
    YD = lambda d: (inner_top + inner_bottom) / 2 - (inner_bottom - inner_top) / 2 * d / reach  # noqa: E731
    body.append(_text(12, y0 + 8, f"第 {stop} 步以后，每一次的损失减去不中断那次的损失", 12, fill=MUTED))
    for d in (-reach, 0, reach):
        body.append(
            f'<line x1="48" y1="{YD(d):.1f}" x2="{width - right}" y2="{YD(d):.1f}" '
            f'stroke="{MUTED if d == 0 else "#e2d8c6"}"/>'
        )
        body.append(_text(42, YD(d) + 4, "0" if d == 0 else f"{d:+.4f}".replace("-", "−"), 11, "end", MUTED))
    for s in range(stop, config.steps + 1, 2):
        body.append(_text(XD(s), inner_bottom + 14, str(s), 11, "middle", MUTED))
    for name, points in gaps.items():
        if name == "续训":
            body.extend(_circle(XD(s), YD(d)) for s, d in points)
        else:
            color, dash = _STYLES[name]
            body.append(_polyline(points, XD, YD, color, 1.8, dash))
    body.append(
        _text(
            width - 170,
            YD(0) + 4,
            f"续训：{config.steps - stop} 步全是 0" if all(d == 0 for _, d in gaps["续训"]) else "续训：不全是 0",
            11,
            fill="#8c2f1b",
        )
    )


def _checkpoint_rows(body: list[str], state: dict, top: float, width: int) -> float:
    """从 top 起，存档 checkpoint.pt 的各部分一行一条（read_checkpoint 读回来、checkpoint.stored_sizes 数）。
    返回画完后的 y。"""
    sizes = stored_sizes(state)
    rows = [
        (
            "weights",
            f"{len(state['weights'])} 个名字、{sizes.tensors} 个张量，{sizes.parameters:,} 个参数",
            f"{sizes.weight_bytes:,} 字节",
        ),
        (
            "optimizer",
            f"{len(state['optimizer']['state'])} 个参数各有 exp_avg、exp_avg_sq",
            f"{sizes.optimizer_bytes:,} 字节",
        ),
        (
            "rng",
            f"torch 发生器 {state['rng']['torch'].numel()} 字节 + Python {len(state['rng']['python'])} 个整数",
            "dropout 用",
        ),
        ("step", str(state["step"]), "日程与取批"),
        ("vocab_hash", state["vocab_hash"], "汉字表指纹"),
        (
            "model_config",
            f"width={state['model_config']['width']}, n_layers={state['model_config']['n_layers']} …",
            "先建空模型",
        ),
        ("train_config、log", f"{len(state['log'])} 条日志", ""),
    ]
    body.append(
        _text(
            12,
            top - 8,
            f"第 {state['step']} 步的存档 checkpoint.pt 里有什么（read_checkpoint 读回来数）",
            12,
            weight="bold",
        )
    )
    for i, (name, what, note) in enumerate(rows):
        y = top + i * 26
        body.append(f'<rect x="12" y="{y}" width="{width - 24}" height="22" rx="3" fill="#fffdf8" stroke="#d9cfbd"/>')
        body.append(_text(22, y + 15, name, 12, weight="bold"))
        body.append(_text(150, y + 15, what, 12))
        body.append(_text(width - 22, y + 15, note, 11, "end", MUTED))
    return top + len(rows) * 26 + 16


def lesson18() -> Chart:
    """第 18 课实验的小训练：不中断与第 8 步停下再续训的损失逐步相同；少放回优化器或随机数状态就岔开；
    第 8 步的存档里各部分有多大（read_checkpoint 读回来数）。"""
    runs = _resume_runs()
    config, straight, resumed, state = runs["config"], runs["straight"], runs["resumed"], runs["state"]
    variants = runs["variants"]
    stop, last = state["step"], config.steps - 1
    sizes = stored_sizes(state)
    same = [a["loss"] for a in straight] == [e["loss"] for e in resumed]
    width, plot_h, diff_h, right = 680, 230, 150, 180
    X, body = _loss_panel(runs, width, plot_h, right)
    _gap_panel(body, runs, X, width, plot_h, diff_h, right)
    y = _checkpoint_rows(body, state, plot_h + diff_h + 30, width)
    body.append(_text(12, y, "因果遮挡 causal 是缓冲区（persistent=False）：不存，建模型时重新算出来", 11, fill=MUTED))
    height = int(y + 14)
    body[0] = f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>'  # 底色铺满整张图
    a, b = (variants["不放回优化器状态"], variants["不放回随机数状态"])
    steps = [
        f"与第 18 课实验同样的小训练：tiny 尺寸加 dropout {config.model['dropout']}，共 {config.steps} 步，"
        f"每 {config.eval_every} 步验证并存档。粗线是一口气训练完的每步损失。",
        f"另一次在第 {stop} 步停下、存档、退出，再读档续训（圆圈）：{config.steps} 步的损失"
        + ("一个不差，逐位相同" if same else "并不全同")
        + f"，第 {config.steps} 步的验证损失都是 "
        f"{straight[-1]['val']:.5f} / {resumed[-1]['val']:.5f}。下面一块画的是每一次减去不中断那次的差：续训的圆圈全在 0 上。",
        f"存档里放着接着训练要的一切：{sizes.parameters:,} 个参数（{sizes.weight_bytes:,} 字节，共用的表只存一份），"
        f"AdamW 的两份滑动平均（{sizes.optimizer_bytes:,} 字节，是权重的两倍），步数 {stop}，"
        f"随机数发生器的状态（torch {state['rng']['torch'].numel()} 字节、Python {len(state['rng']['python'])} 个整数）。",
        f"蓝色虚线：读档时换成新建的优化器，第 {stop + 2} 步起就岔开（{a[stop + 1]['loss']:.5f}，"
        f"不中断是 {straight[stop + 1]['loss']:.5f}），第 {config.steps} 步 {a[last]['loss']:.5f}。",
        f"灰色点线：不放回随机数状态，dropout 抽到的数就不同，第 {stop + 1} 步已是 {b[stop]['loss']:.5f}"
        f"（不中断 {straight[stop]['loss']:.5f}）：差得小，但不再逐位相同。",
    ]
    return Chart("存档与续训", _svg(width, height, "不中断与续训的损失曲线，以及存档里的各部分", body), steps)
