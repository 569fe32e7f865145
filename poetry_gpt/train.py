"""训练 PoetryGPT（第 16–18 课读这个文件）：学习率日程与 AdamW（第 16 课），训练的一步 :func:`train_step` 与训练循环
:func:`train_loop`（第 17 课），存档与续训（第 18 课）。

一步和循环只写最朴素的做法：取一批 → 损失 → 反向 → 裁剪 → 更新，隔一段验证一次。``./poet train`` 的 :func:`train`
从旁边包住它们，每一样都在以自己命名的模块里：``--minutes`` 的日程（poetry_gpt/time_budget.py）、分几次训练完
（poetry_gpt/sittings.py）、bf16 与 torchrun 下的多进程（poetry_gpt/devices.py）、进度条（poetry_gpt/progress_bar.py）。
更快的变体也在旁边，并且验证过与朴素的做法相同：分块的交叉熵（poetry_gpt/loss.py）、Muon（poetry_gpt/muon.py）。

用法：``./poet train --preset tiny``（几十秒）、``./poet train --preset base``（课上训练的预设）；随课程发布的模型怎样训练的见 data/MODEL.md。

参考：Loshchilov & Hutter, "Decoupled Weight Decay Regularization" (AdamW), 2019；
Loshchilov & Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts"（余弦衰减）, 2017；
Hägele et al., "Scaling Laws and Compute-Optimal Training Beyond Fixed Training Durations"（wsd 日程）, 2024。
"""

from __future__ import annotations

import math
import random
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from .batches import TrainingSamples, encode_split
from .checkpoint import CHECKPOINT_NAME, CheckpointError, load_model, read_checkpoint, save_checkpoint
from .common import os_reason
from .data import Tokenizer, default_tokenizer, load_poems, loss_mask_for
from .devices import Workers, resolve_device, resolve_precision
from .loss import batch_loss, mean_cross_entropy
from .model import ModelConfig, PoetryGPT
from .muon import Muon, MuonWithAdamW, block_matrices
from .progress_bar import ProgressBar, sample_line
from .settings import DEVICES
from .sittings import Sittings, keep_snapshot
from .time_budget import PLAN_AT, VALIDATION_COST, MinutesPlanner, TooShort, scaled_warmup
from .train_config import TrainConfig

# ---------- 学习率与优化器（第 16 课） ----------


def learning_rate(step: int, config: TrainConfig) -> float:
    """第 step 步（从 0 数）的学习率（第 16 课）。

    预热：第 step 步（step < warmup）是 lr × (step + 1) / warmup，所以第 0 步是 lr/warmup（不是 0），
    第 warmup − 1 步正好是 lr。之后按余弦从 lr 降到 lr × min_lr_ratio：第 steps 步到达最低值，
    超过 steps 的步一直是最低值（续训按存档里的同一张表）。schedule 是 ``"wsd"`` 时预热之后见 :func:`wsd_rate`。
    """
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    if config.schedule == "wsd":
        return wsd_rate(step, config)
    progress = min(1.0, (step - config.warmup) / max(1, config.steps - config.warmup))
    low = config.lr * config.min_lr_ratio
    return low + 0.5 * (config.lr - low) * (1 + math.cos(math.pi * progress))


def wsd_rate(step: int, config: TrainConfig) -> float:
    """wsd 日程预热之后的学习率：持平在 lr，到 :func:`decay_start` 才线性降下来，同样在第 steps 步到达最低值。

    衰减开始之前改大总步数不改变已经走过的学习率：分几次训练时可以到最后一次再定何时结束。
    """
    low = config.lr * config.min_lr_ratio
    start = decay_start(config)
    progress = min(1.0, max(0, step - start) / max(1, config.steps - start))
    return config.lr - (config.lr - low) * progress


def decay_start(config: TrainConfig) -> int:
    """wsd 日程从第几步开始衰减：最后 decay_share 的步数（不早于预热结束）。例：steps=1000、decay_share=0.2 → 800。"""
    return max(config.warmup, config.steps - round(config.steps * config.decay_share))


def make_optimizer(model: torch.nn.Module, config: TrainConfig) -> torch.optim.Optimizer | MuonWithAdamW:
    """模型的优化器：:func:`adamw`（第 16 课）。

    config.optimizer 是 ``"muon"`` 时返回 :class:`poetry_gpt.muon.MuonWithAdamW`：Block 里的矩阵交给 Muon，
    其余照旧交给 AdamW（随课程发布的模型这样训练，data/MODEL.md）。
    """
    if config.optimizer == "muon":
        hidden = block_matrices(model)
        taken = {id(p) for p in hidden}
        rest = [p for p in model.parameters() if id(p) not in taken]
        return MuonWithAdamW(Muon(hidden, lr=config.lr, weight_decay=config.weight_decay), adamw(rest, config))
    return adamw(model.parameters(), config)


def adamw(parameters: Iterable[torch.nn.Parameter], config: TrainConfig) -> torch.optim.AdamW:
    """AdamW：矩阵（字表、位置表、各线性层的权重）做权重衰减，偏置与 LayerNorm 的参数不做。

    ``fused=True`` 让一次更新在一个循环里算完所有参数（CPU 与 CUDA 都支持），结果与逐个张量更新相同。
    """
    params = list(parameters)
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": config.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=config.lr, betas=(0.9, 0.95), fused=True)


# ---------- 训练的一步与训练循环（第 17 课） ----------


def train_step(
    model: PoetryGPT,
    optimizer: torch.optim.Optimizer,
    batch: list[list[int]],
    lr: float,
    grad_clip: float,
    loss_fn: Callable[[PoetryGPT, list[list[int]]], torch.Tensor] = batch_loss,
) -> torch.Tensor:
    """训练的一步：学习率写进优化器 → 这一批的平均损失 → 反向 → 按总范数裁剪到 grad_clip → 更新 → 清零梯度。

    loss_fn 默认是 :func:`poetry_gpt.loss.batch_loss`（只在正文与 <eos> 上算，第 15 课）；bf16 与多进程时
    :func:`train` 换成 :meth:`poetry_gpt.devices.Workers.loss_function` 给的，这一步照样这么走。

    Returns:
        这一批的平均损失（标量张量，奈特/字）。
    """
    for group in optimizer.param_groups:
        group["lr"] = lr
    loss = loss_fn(model, batch)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


def train_loop(
    model: PoetryGPT,
    optimizer: torch.optim.Optimizer,
    config: TrainConfig,
    samples: TrainingSamples,
    val_samples: list[list[int]],
    step: int,
    log: list[dict],
    step_fn: Callable[..., torch.Tensor] = train_step,
) -> Iterator[dict]:
    """训练循环：从第 step 步（从头训练时是 0，续训时接着存档，第 18 课）走到第 config.steps 步。

    每一步按日程表定学习率，取这一步的一批（只由 step 定），交给 step_fn（默认 :func:`train_step`）；在 log 里记一条
    ``{step, loss, lr}``（step 是走完了几步），每 eval_every 步和最后一步再在 val_samples 上验证，加上 val。
    每走完一步把这一条交出来（yield）：:func:`train` 在这时画进度条、存档，也可以不再要下一条，就此停下；
    ``--minutes`` 还会在两步之间改 config.steps，循环每一步都重读它。
    """
    device = next(model.parameters()).device
    model.train()
    while step < config.steps:
        lr = learning_rate(step, config)
        loss = step_fn(model, optimizer, samples.batch(step, config), lr, config.grad_clip)
        step += 1
        entry = {"step": step, "loss": round(loss.item(), 5), "lr": lr}
        log.append(entry)
        if step % config.eval_every == 0 or step == config.steps:
            entry["val"] = round(mean_cross_entropy(model, val_samples, device), 5)
        yield entry


# ---------- ./poet train：准备、续训（第 18 课）、按时间排日程、分几次训练完、多进程 ----------


@dataclass
class Run:
    """一次训练的结果：最终步数、总步数、日志（每条含 step、loss、lr，验证时还有 val）、是否被打断。"""

    step: int
    log: list
    total: int = 0
    interrupted: bool = False
    checkpoint: Path | None = None


def prepare_output(out: Path) -> Path:
    """确认存档目录 out 写得进去（没有就建，再试写一个临时文件：别等训练了几分钟才在第一次存档时失败），
    返回其中存档的路径。

    Raises:
        ValueError: out 是一个已有的文件，或写不进去。
    """
    if out.exists() and not out.is_dir():
        raise ValueError(f"存档目录 {out} 已经是一个文件，不是文件夹；请换一个 --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=out).close()
    except OSError as e:
        raise ValueError(f"存档目录 {out} 写不进去（{os_reason(e)}）；请换一个 --out") from None
    return out / CHECKPOINT_NAME


def resumed_config(state: dict, ckpt_path: Path, config: TrainConfig) -> TrainConfig:
    """续训的设置：存档里的（总步数、学习率表、种子……），只有验证间隔、示例诗间隔与精度取 config 里的。

    Raises:
        CheckpointError: 存档是另一位诗人（或另一个起点模型）的微调、或不是微调而要当微调续训（config.author 与存档的不同），
            存档的模型尺寸与 config.model 不同、只有权重没有优化器与随机数状态，或训练设置坏了。
    """
    author, start = state["train_config"].get("author"), state["train_config"].get("start_from")
    if author != config.author:
        if author is None:
            raise CheckpointError(f"{ckpt_path} 不是微调的存档，接着训练时不要给 --author")
        raise CheckpointError(
            f"{ckpt_path} 是微调成{author}的存档，接着训练请给 --author {author}"
            + (f"（不能换成{config.author}；要微调别的诗人，请换一个 --out）" if config.author else "")
        )
    if start != config.start_from:
        raise CheckpointError(f"{ckpt_path} 是从 {start} 开始微调的，接着训练请给同一个 --from {start}")
    saved = state["train_config"].get("model")
    if saved != config.model:
        raise CheckpointError(
            f"{ckpt_path} 里的模型是{_sizes_text(saved)}，与要训练的{_sizes_text(config.model)} 不同，不能接着训练；"
            "接着训练请给与当初相同的 --preset 与尺寸（--width、--n-layers、--n-heads），或换一个 --out 从头训练"
        )
    if "optimizer" not in state or "rng" not in state:
        raise CheckpointError(
            f"{ckpt_path} 只有权重（导出的模型或随课程发布的模型），没有优化器与随机数状态，"
            "不能接着训练；请用 ./poet train 写出的存档"
        )
    # 以前律诗材料的开关叫 verse（与第 24 课的诗律解码同名）：旧存档里的这个键照新名读，照样能续训
    stored = {"regulated" if k == "verse" else k: v for k, v in state["train_config"].items()}
    try:
        return replace(
            TrainConfig(**stored),
            **{k: getattr(config, k) for k in ("eval_every", "sample_every_s", "precision")},
        )
    except TypeError:
        raise CheckpointError(f"{ckpt_path} 里的训练设置损坏了，不能接着训练") from None


def _sizes_text(model: dict | None) -> str:
    """存档里的尺寸写成一句中文，例如“宽 224、6 层、7 头、前文长度 64”（续训的尺寸对不上时用）。"""
    model = model or {}
    parts = [f"宽 {model['width']}" if "width" in model else None]
    parts += [
        f"{model['n_layers']} 层" if "n_layers" in model else None,
        f"{model['n_heads']} 头" if "n_heads" in model else None,
    ]
    parts += [f"前文长度 {model['context_length']}" if "context_length" in model else None]
    parts += [f"dropout {model['dropout']:g}" if model.get("dropout") else None]
    return "、".join(p for p in parts if p) or "（没有记下尺寸）"


def build_model(
    model_config: ModelConfig, config: TrainConfig, device: torch.device, state: dict | None = None
) -> tuple[PoetryGPT, torch.optim.Optimizer | MuonWithAdamW]:
    """按种子新建模型与优化器；给了存档 state（续训）时放回权重、优化器与随机数状态。
    不续训而 config.start_from 给了一个模型文件时（微调，第 26 课），权重换成那个模型的，优化器仍从零开始。

    随机数状态最后才放回：新建模型和优化器会用掉随机数，放回之后接下来的取批、dropout 与没停过的一样（第 18 课）。

    Raises:
        CheckpointError: config.start_from 读不了，或它的尺寸与 model_config 不同。
    """
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    model = PoetryGPT(model_config).to(device)
    if state is None and config.start_from is not None:
        start, _ = load_model(config.start_from, device=device)
        if start.config != model_config:
            raise CheckpointError(
                f"{config.start_from} 的模型是{_sizes_text(start.config.to_dict())}，"
                f"与要训练的{_sizes_text(model_config.to_dict())} 不同"
            )
        model.load_state_dict(start.state_dict())
    optimizer = make_optimizer(model, config)
    if state is not None:
        model.load_state_dict(state["weights"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"]["torch"])
        random.setstate((3, tuple(state["rng"]["python"]), None))
    return model, optimizer


def train(
    config: TrainConfig,
    out: str | Path,
    *,
    resume: bool = False,
    steps: int | None = None,
    minutes: float | None = None,
    stop_at: int | None = None,
    stop_after: float | None = None,
    device: str = DEVICES[0],
    tokenizer: Tokenizer | None = None,
    progress: bool = True,
) -> Run:
    """训练并在 ``out/checkpoint.pt`` 写存档。

    走的是 :func:`train_loop` 与 :func:`train_step`；这里从旁边加上存档、进度条与示例诗，以及下面几样。
    在 torchrun 下（环境变量 WORLD_SIZE > 1）每个进程取这一批中属于自己的一份，用 DistributedDataParallel 把梯度平均；
    损失按全批的计分字数加权，所以结果与单进程算整批相同（:meth:`poetry_gpt.devices.Workers.loss_function`）。

    Args:
        resume: 从 out 里的存档接着训练；日志、优化器、随机数状态与总步数都接上，损失与没停过的一样。
            精度、验证与示例诗的间隔取 config 里的。开始时先说这次训练走到了哪里（:class:`poetry_gpt.sittings.Sittings`）。
        steps: 总步数（覆盖 config.steps 与存档里的）；None 时新训练用 config.steps，续训用存档里的。
        minutes: 在这么多分钟内训练完（:class:`poetry_gpt.time_budget.MinutesPlanner`）：量出每步用时后排定总步数
            与预热（:func:`poetry_gpt.time_budget.scaled_warmup`），让学习率的余弦衰减在截止时刻降到最低值；之后按钟表
            每隔给的时间的 1/50 用最近的用时重排一次（学习率会随之小跳一下），剩下的验证也排进去。
            同时给了 stop_after（分几次训练完）时只在开头量一次、排定之后不再改。
            排定的步数记进存档与 Run.total。不能与 steps、resume 同时给。
        stop_at: 到这一步就停下并存档（任意一步都行：续训与没停过的一样）。
        stop_after: 这一次最多训练这么多分钟（训练循环的墙上时间，不算准备数据），到时写好存档停下，另存一份
            ``sitting-step-NNNNNN.pt``；之后用 resume 接着训练。

    Returns:
        :class:`Run`。Ctrl-C 时写好存档并返回 ``interrupted=True``。

    Raises:
        CheckpointError: resume 时存档不能用（见 :func:`resumed_config`）。
        ValueError: out 是一个已有的文件或写不进去；要的设备不可用；续训时存档已达到总步数；
            minutes 与 steps 或 resume 一起给；config.model 的尺寸不合（宽度不能被头数整除）；
            minutes 排定的步数少于 config.min_steps（TooShort：量完前 8 步就停，不写存档）。
        出错时不会留下新建的空存档目录：参数都在建目录之前检查。
    """
    if minutes is not None and steps is not None:
        raise ValueError("--minutes 会按时间算出总步数，不能再给 --steps；两个只能选一个")
    if minutes is not None and resume:
        raise ValueError("续训按存档里排好的总步数走完，不能再给 --minutes；要按时间排日程，请换一个 --out 从头训练")
    tokenizer = tokenizer or default_tokenizer()
    model_config = ModelConfig(vocab_size=len(tokenizer), **config.model)
    ckpt_path = prepare_output(Path(out))
    dev = resolve_device(device)
    precision = resolve_precision(config.precision, dev)
    workers = Workers.start(dev)
    state = read_checkpoint(ckpt_path, tokenizer) if resume else None
    config = resumed_config(state, ckpt_path, config) if resume else config
    # 这次训练自己的一份设置：--minutes 排定总步数时就地改它，训练循环与存档看到的都是改过的
    config = replace(config, steps=config.steps if steps is None else steps)
    step, log = (state["step"], state["log"]) if resume else (0, [])
    if step >= config.steps:
        raise ValueError(f"存档已经训练到第 {step} 步，达到了总步数 {config.steps}；要多训练，请给更大的 --steps")
    model, optimizer = build_model(model_config, config, workers.device, state)  # 存档的尺寸上面已确认相同
    sittings = Sittings(Path(out), step, list(state.get("sittings", [])) if resume else [])
    main = workers.rank == 0  # 只有第 0 个进程写存档、画进度条、写示例诗
    train_samples, val_samples = _samples(config, tokenizer, announce=progress and main)
    meter = _Meter(workers.loss_function(model, precision))
    entries = train_loop(model, optimizer, config, train_samples, val_samples, step, log, meter.step)

    def save(step: int) -> None:
        if main:
            record = sittings.record(step, time.monotonic(), log)
            save_checkpoint(
                ckpt_path, model, tokenizer, optimizer=optimizer, step=step, config=config, log=log, sittings=record
            )

    stops = Stops(stop_at, stop_after, minutes)
    last = stops.last_step(config.steps)
    bar = ProgressBar(step, last, enabled=progress and main)
    started = last_sample = sittings.begin(time.monotonic(), config.steps, minutes, config.start_from)
    planner = _planner(config, stops, started)
    interrupted = False
    try:
        with bar:
            for line in _start_text(config, step, last, stops, log, workers, precision, sittings):
                bar.print(line)
            while step < last and not stops.time_is_up(started, time.monotonic()):
                if planner is not None and (plan := planner.replan(step, time.monotonic())) is not None:
                    last = _reschedule(plan, step, config, stops, planner, workers, bar)
                entry = next(entries)
                step = entry["step"]
                speed = meter.chars / max(time.monotonic() - started, 1e-9)
                bar.update(step, entry, speed)
                if "val" in entry:  # 验证的结果留在进度条上方，并顺手存一次档
                    bar.print(
                        f"第 {step} 步：损失 {entry['loss']:.3f}，验证 {entry['val']:.3f} 奈特/字，"
                        f"学习率 {entry['lr']:.2e}，{speed:,.0f} 字/秒，已用 {(time.monotonic() - started) / 60:.1f} 分钟"
                    )
                    save(step)
                    if planner is not None:
                        planner.paused(time.monotonic() - meter.stepped)
                if main and config.sample_every_s and time.monotonic() - last_sample > config.sample_every_s:
                    last_sample = time.monotonic()
                    bar.print(sample_line(model, tokenizer, step))
    except KeyboardInterrupt:
        interrupted = True
        step = log[-1]["step"] if log else step  # Ctrl-C 打在验证里时，这一步已经走完、记进了日志
    except TooShort:
        sittings.note(f"没有训练：量完前 {PLAN_AT} 步，{minutes:g} 分钟排不出足够的步数，没有写存档")
        raise
    save(step)
    if main and step < config.steps and stop_after is not None and not interrupted:
        keep_snapshot(ckpt_path, step)
    if main:
        sittings.end(step, time.monotonic(), config.steps, log, interrupted)
    workers.barrier()
    return Run(step=step, log=log, total=config.steps, interrupted=interrupted, checkpoint=ckpt_path)


LEFT_OUT = ("optimizer", "rng")
"""resume_without 能少放回的两部分状态。"""


def resume_without(state: dict, part: str, config: TrainConfig, out: str | Path) -> Run:
    """从存档 state 续训，但少放回一部分状态（第 18 课：少了哪一样，续训的损失都不再与没停过的相同）。

    part 是 ``"optimizer"`` 时换成新建优化器的状态（AdamW 的两份滑动平均从零开始），是 ``"rng"`` 时把 torch 的
    随机数状态换成另一个发生器（种子 1）的（dropout 抽到的数就不同）；其余部分原样。改过的存档写进
    ``out/checkpoint.pt``，再 ``train(config, out, resume=True)`` 续训到总步数，不显示进度。

    Args:
        state: :func:`poetry_gpt.checkpoint.read_checkpoint` 读出的训练存档（有 optimizer 与 rng）。
    Returns:
        :func:`train` 的 :class:`Run`；``Run.log`` 是从第 1 步起的整段日志。
    Raises:
        ValueError: part 不在 :data:`LEFT_OUT` 里；其余同 :func:`train`（out 写不进去、存档已达到总步数……）。
        CheckpointError: 同 :func:`train` 的 resume。
    """
    if part == "optimizer":
        fresh = make_optimizer(PoetryGPT(ModelConfig(**state["model_config"])), config)
        changed = {**state, "optimizer": fresh.state_dict()}
    elif part == "rng":
        changed = {**state, "rng": {**state["rng"], "torch": torch.Generator().manual_seed(1).get_state()}}
    else:
        raise ValueError(f"少放回的部分只能是 {'、'.join(LEFT_OUT)} 之一，不是 {part!r}")
    torch.save(changed, prepare_output(Path(out)))
    return train(config, out, resume=True, progress=False)


@dataclass(frozen=True)
class Stops:
    """这一次在哪里停：stop_at（步数）、stop_after（分钟），以及 --minutes 的总时间（见 :func:`train`）。"""

    stop_at: int | None = None
    stop_after: float | None = None
    minutes: float | None = None

    def last_step(self, total: int) -> int:
        return min(total, self.stop_at or total)

    def time_is_up(self, started: float, now: float) -> bool:
        return self.stop_after is not None and now - started >= self.stop_after * 60


def _samples(config: TrainConfig, tokenizer: Tokenizer, announce: bool) -> tuple[TrainingSamples, list[list[int]]]:
    """(训练样本, 验证用的 config.eval_poems 首 val 诗)。读律诗、切窗口要半分钟到一分钟：announce 时先说一声。"""
    if announce and config.regulated:
        from .labs import console

        console.print("准备训练样本：绝句与律诗、排律的四句窗口（data/regulated.txt.gz，约一分钟）…")
    return TrainingSamples(config, tokenizer), encode_split("val", tokenizer, config.eval_poems, author=config.author)


class _Meter:
    """:func:`train` 交给训练循环的 step_fn：照样走 :func:`train_step`（用 loss_fn 算损失），另外数这一次走过的
    计分字数（进度条的字/秒），记下最近一步走完的时刻（--minutes 不把之后的验证与存档算进每步用时）。"""

    def __init__(self, loss_fn: Callable[[PoetryGPT, list[list[int]]], torch.Tensor]):
        self.loss_fn, self.chars, self.stepped = loss_fn, 0, 0.0

    def step(
        self, model: PoetryGPT, optimizer: torch.optim.Optimizer, batch: list[list[int]], lr: float, grad_clip: float
    ) -> torch.Tensor:
        loss = train_step(model, optimizer, batch, lr, grad_clip, self.loss_fn)
        self.chars += sum(sum(loss_mask_for(s)) for s in batch)
        self.stepped = time.monotonic()
        return loss


def _planner(config: TrainConfig, stops: Stops, started: float) -> MinutesPlanner | None:
    """给了 --minutes 时排日程的 MinutesPlanner，否则 None。分几次训练完时只量一次：总步数从第一次起就定下，以后每次照它走。"""
    if stops.minutes is None:
        return None
    return MinutesPlanner(
        stops.minutes,
        started,
        config.eval_every,
        validation_steps=VALIDATION_COST * math.ceil(config.eval_poems / config.batch_size),
        once=stops.stop_after is not None,
    )


def _start_text(
    config: TrainConfig,
    step: int,
    last: int,
    stops: Stops,
    log: list,
    workers: Workers,
    precision: str,
    sittings: Sittings,
) -> list[str]:
    """开始时留在进度条上方的几行：在哪里、怎样训练；续训时还有走到了哪里；分几次时这一次训练多久。"""
    if stops.minutes is None:
        plan = f"第 {step} → {last} 步"
    else:
        plan = f"先量前 {PLAN_AT} 步的用时，再按 {stops.minutes:g} 分钟排定总步数"
    lines = [
        f"在 {workers.device.type.upper()} 上训练（{workers.world} 个进程），精度 {precision}，"
        f"每步 {config.batch_size} 首诗，{plan}"
    ]
    if config.author is not None and step == 0:
        lines.append(
            f"微调：从 {config.start_from} 的权重开始，只用{config.author}在 train 里的 "
            f"{len(load_poems('train', author=config.author)):,} 首绝句，验证用他留在 val 里的 "
            f"{len(load_poems('val', author=config.author))} 首"
        )
    if step > 0:
        lines.append(sittings.where_we_stand(config.steps, log, stops.stop_after))
    if stops.stop_after is not None:
        lines.append(f"这一次训练 {stops.stop_after:g} 分钟，到时写好存档停下；之后加 --resume 接着训练")
    return lines


def _reschedule(
    plan: tuple[float, int],
    step: int,
    config: TrainConfig,
    stops: Stops,
    planner: MinutesPlanner,
    workers: Workers,
    bar: ProgressBar,
) -> int:
    """按 planner 排定的总步数就地改 config.steps（训练循环每一步都重读它），返回循环停在第几步。各进程量出的时间略有不同，
    步数却必须一样：取最少的。第一次排定时也按步数定预热（:func:`scaled_warmup`），步数太少就不训练；
    之后只有与上一次说的相差一成以上才在进度条上方再说一遍（:meth:`MinutesPlanner.worth_saying`）。

    Raises:
        TooShort: 第一次排定的步数少于 config.min_steps（说明怎么办）。
    """
    per_step, planned = plan
    total = int(workers.all_reduce(torch.tensor(planned, device=workers.device), op="min"))
    if step == PLAN_AT:
        if (why := planner.too_short(total, per_step, config.min_steps)) is not None:
            raise TooShort(why)
        config.warmup = scaled_warmup(total, config.warmup)
    config.steps = total
    said = planner.describe(step, per_step, total, config.warmup) if planner.worth_saying(total) else None
    bar.plan(stops.last_step(total), said)
    return stops.last_step(total)
