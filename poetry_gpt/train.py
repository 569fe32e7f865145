"""训练 PoetryGPT（第 15–19 课）：AdamW 或 Muon、预热加余弦衰减的学习率、梯度裁剪、只在正文上算损失、
定期在 val 上验证、原子写入的存档与断点续训、分几次训练完（--stop-after）、torchrun 下的多进程数据并行。

用法：``./poet train --preset tiny``（几十秒）、``./poet train --preset base``（课上训练的预设）；随课程发布的模型怎样训练的见 data/MODEL.md。

参考：Loshchilov & Hutter, "Decoupled Weight Decay Regularization" (AdamW), 2019；
Loshchilov & Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts"（余弦衰减）, 2017；
Hägele et al., "Scaling Laws and Compute-Optimal Training Beyond Fixed Training Durations"（wsd 日程）, 2024；
Jordan et al., "Muon: An optimizer for hidden layers in neural networks"（muon）, 2024；
Liu et al., "Muon is Scalable for LLM Training"（Muon 的更新幅度与权重衰减）, 2025。
"""

from __future__ import annotations

import math
import random
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from .batches import TrainingSamples, batch_indices, encode_split  # noqa: F401  课程与测试从 train 取后两个
from .checkpoint import CHECKPOINT_NAME, CheckpointError, read_checkpoint
from .common import COURSE_SEED, os_reason
from .data import Tokenizer, default_tokenizer
from .devices import Workers, resolve_device, resolve_precision
from .loss import mean_cross_entropy
from .model import ModelConfig, PoetryGPT
from .progress_bar import ProgressBar
from .settings import DEVICES, OPTIMIZERS, PRECISIONS, SCHEDULES
from .sittings import Sittings, snapshot_name
from .time_budget import PLAN_AT, VALIDATION_COST, MinutesPlanner, TooShort, scaled_warmup
from .trainer import Trainer


@dataclass
class TrainConfig:
    """一次训练的全部设置。

    Attributes:
        model: ModelConfig 的尺寸（vocab_size 由汉字表决定，不写在这里）。
        steps: 总步数；学习率的余弦衰减按它排好。给了 ``--minutes`` 时由量出的每步用时算出
            （见 :func:`poetry_gpt.time_budget.planned_steps`），和别的设置一起存进存档，续训按同一张表走完。
        batch_size: 每步的诗数（多进程时是所有进程合起来的数目）。
        lr: 预热结束时的峰值学习率；min_lr_ratio: 衰减到的最低值占峰值的比例。
        warmup: 预热步数（第 0 步的学习率是 lr/warmup，线性升到第 warmup−1 步的 lr；第 16 课）。
        weight_decay: 只加在矩阵（二维以上的参数）上，偏置和 LayerNorm 不衰减。
        grad_clip: 梯度总范数的上限。
        eval_every: 每多少步在 val 上验证一次；eval_poems: 验证用 val 里等距取的多少首（data.load_poems）。
        train_poems: 只用 train 里等距取的多少首（None 表示全部；tiny 用一小部分，好在几秒内备好数据）。
        keyword_dropout: train 里不带关键词（条件区空着）的诗的比例（第 06 课），由每首诗的 id 定
            （data.drops_keywords）。模型因此也学会只凭体裁写诗；验证照常带关键词。两个预设都是 0，
            bench/time_to_quality.py 用 0.1（计分时不给关键词）。
        seed: 固定的随机种子（初始化、取批顺序、dropout）。
        sample_every_s: 每隔多少秒在进度条上方写一首示例诗（0 表示不写）。
        precision: ``"fp32"``、``"bf16"`` 或 ``"auto"``。bf16 是 bfloat16 自动混合精度（``torch.autocast``）：
            前向与反向里的矩阵乘法用 bf16，权重、优化器、softmax、注意力与损失仍是 fp32（第 17 课）。auto 在 bf16 矩阵乘法
            确实更快的设备上选 bf16（支持 bf16 的 CUDA 显卡；带 AMX 的 Intel CPU，bf16 矩阵乘法约快 5 倍），
            其他设备上选 fp32——普通笔记本的 CPU 上 bf16 反而更慢。验证损失始终用 fp32 计算。
        fresh_keywords: 每一步为这一批诗重新抽关键词（按 IDF 加权，个数见 batches.KEYWORD_COUNTS），
            不用第 06 课固定的 TF-IDF 关键词；此时 keyword_dropout 不用（个数 0 就是不带关键词）。
        regulated: 也用 data/regulated.txt.gz 的律诗、排律切成的四句窗口（batches.regulated_windows；要 fresh_keywords）。
        quatrain_repeats: 有 regulated 时，每一轮里绝句重复几遍（窗口是绝句的 8 倍多，不重复时绝句只占约一成）。
        finetune_share: 有 regulated 时，最后这一份步数只用绝句（先在全部近体诗上训练，再在绝句上微调）。
        schedule: 学习率日程，``"cosine"``（预热后余弦衰减）或 ``"wsd"``（预热、持平、最后 decay_share 的步数线性衰减：
            衰减开始之前改大总步数不改变已经走过的学习率，分几次训练时可以到最后一次再定何时结束）。
        decay_share: wsd 衰减段占总步数的比例。
        optimizer: ``"adamw"``（第 16 课）或 ``"muon"``：Block 里的矩阵用 :class:`Muon`（动量先正交化再更新），
            字表、位置表、偏置与 LayerNorm 仍用 AdamW；两者用同一个学习率（Muon 按 AdamW 的更新幅度换算）。
        min_steps: 给了 ``--minutes`` 时，排定的步数少于它就不训练，先说明怎么办（见
            :meth:`poetry_gpt.time_budget.MinutesPlanner.too_short`）：这么短的训练学不到什么。
    """

    model: dict = field(default_factory=dict)
    steps: int = 1000
    batch_size: int = 64
    lr: float = 2e-3
    min_lr_ratio: float = 0.1
    warmup: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    eval_every: int = 200
    eval_poems: int = 512
    train_poems: int | None = None
    keyword_dropout: float = 0.0
    seed: int = COURSE_SEED
    sample_every_s: float = 180.0
    precision: str = PRECISIONS[0]
    fresh_keywords: bool = False
    regulated: bool = False
    quatrain_repeats: int = 1
    finetune_share: float = 0.0
    schedule: str = SCHEDULES[0]
    decay_share: float = 0.2
    optimizer: str = OPTIMIZERS[0]
    min_steps: int = 0


LEARNS_AFTER = 200
"""base 的验证损失走到第 200 步才低于二元基线（5.491 对 5.627，results/history/model-log-ship3.txt）：
按时间排定的步数少于它时，训练完仍写不出像样的诗，base 与 regulated 因此不开始训练。"""

PRESETS = {
    # 测试与课程用：一层、宽 32，2 个核上几十秒以内，损失明显下降
    "tiny": TrainConfig(
        model=dict(context_length=48, width=32, n_layers=1, n_heads=2),
        steps=120,
        batch_size=32,
        lr=1e-2,
        warmup=10,
        eval_every=40,
        eval_poems=128,
        train_poems=4000,
        sample_every_s=0,
        precision="fp32",
    ),
    # 课上训练的预设（上一版随课程发布的模型就是它，一次 55 分钟）：前文长度 64、宽 128、6 层、4 头（比 ModelConfig
    # 默认的 4 层多两层：同样训练 55 分钟，验证损失更低，见 data/MODEL.md），约 205 万个参数，fp16 存下约 4.4 MB；
    # 每步 128 首诗（比 64 首时矩阵乘法更饱满，每字更快：bench/train_speed.py --batch-size 64 对照），2800 步约为 train 的 4 轮
    "base": TrainConfig(
        model=dict(context_length=64, width=128, n_layers=6, n_heads=4),
        steps=2800,
        batch_size=128,
        lr=3e-3,
        warmup=100,
        eval_every=200,
        eval_poems=512,
        min_steps=LEARNS_AFTER,
    ),
    # 更多的诗：绝句（每轮 4 遍）加上律诗、排律切成的四句窗口，关键词每步重抽，最后两成步数只用绝句；宽 192、6 层、6 头
    # （约 396 万个参数）。随课程发布的模型用的就是它，换成宽 224、7 头与 Muon，分几次训练了约八个小时（data/MODEL.md）
    "regulated": TrainConfig(
        model=dict(context_length=64, width=192, n_layers=6, n_heads=6),
        steps=2800,
        batch_size=128,
        lr=3e-3,
        warmup=200,
        eval_every=200,
        eval_poems=512,
        fresh_keywords=True,
        regulated=True,
        quatrain_repeats=4,
        finetune_share=0.2,
        min_steps=LEARNS_AFTER,
    ),
}


def learning_rate(step: int, config: TrainConfig) -> float:
    """第 step 步（从 0 数）的学习率（第 16 课）。

    预热：第 step 步（step < warmup）是 lr × (step + 1) / warmup，所以第 0 步是 lr/warmup（不是 0），
    第 warmup − 1 步正好是 lr。之后按余弦从 lr 降到 lr × min_lr_ratio：第 steps 步到达最低值，
    超过 steps 的步一直是最低值（续训按存档里的同一张表）。schedule 是 ``"wsd"`` 时预热之后持平在 lr，
    到 :func:`decay_start` 才线性降下来，同样在第 steps 步到达最低值。
    """
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    low = config.lr * config.min_lr_ratio
    if config.schedule == "wsd":
        start = decay_start(config)
        progress = min(1.0, max(0, step - start) / max(1, config.steps - start))
        return config.lr - (config.lr - low) * progress
    progress = min(1.0, (step - config.warmup) / max(1, config.steps - config.warmup))
    return low + 0.5 * (config.lr - low) * (1 + math.cos(math.pi * progress))


def decay_start(config: TrainConfig) -> int:
    """wsd 日程从第几步开始衰减：最后 decay_share 的步数（不早于预热结束）。例：steps=1000、decay_share=0.2 → 800。"""
    return max(config.warmup, config.steps - round(config.steps * config.decay_share))


def make_optimizer(model: torch.nn.Module, config: TrainConfig):
    """AdamW：矩阵（字表、位置表、各线性层的权重）做权重衰减，偏置与 LayerNorm 的参数不做。

    ``fused=True`` 让一次更新在一个循环里算完所有参数（CPU 与 CUDA 都支持），结果与逐个张量更新相同。
    config.optimizer 是 ``"muon"`` 时返回 :class:`MuonWithAdamW`：Block 里的矩阵交给 Muon，其余照旧交给 AdamW。
    """
    hidden = [
        p
        for n, p in model.named_parameters()
        if config.optimizer == "muon" and n.startswith("blocks.") and p.dim() == 2
    ]
    taken = {id(p) for p in hidden}
    decay = [p for p in model.parameters() if p.dim() >= 2 and id(p) not in taken]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": config.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    adamw = torch.optim.AdamW(groups, lr=config.lr, betas=(0.9, 0.95), fused=True)
    if not hidden:
        return adamw
    return MuonWithAdamW(Muon(hidden, lr=config.lr, weight_decay=config.weight_decay), adamw)


NEWTON_SCHULZ = (3.4445, -4.7750, 2.0315)
"""五次多项式牛顿–舒尔茨迭代的系数 (a, b, c)：让零附近的斜率尽量大，五步就把奇异值推到 0.7–1.2 一带（Jordan 2024）。"""


def orthogonalize(g: torch.Tensor, steps: int = 5) -> torch.Tensor:
    """把矩阵 g ``[m, n]`` 换成奇异向量相同、奇异值都接近 1 的矩阵（近似 U·Vᵀ，其中 g = U·S·Vᵀ），形状不变。

    先除以 Frobenius 范数让所有奇异值 ≤ 1，再做 steps 次 ``X ← aX + (bA + cA²)X``（A = X·Xᵀ）。
    一直用 fp32：torch.optim.Muon 在 bfloat16 里算，没有 AMX 的 CPU 上慢好几倍。
    """
    a, b, c = NEWTON_SCHULZ
    x = g / (g.norm() + 1e-7)
    tall = x.size(0) > x.size(1)
    if tall:  # 在短的那一边上算 X·Xᵀ，矩阵小
        x = x.T
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if tall else x


class Muon(torch.optim.Optimizer):
    """Muon：二维的权重矩阵用 Nesterov 动量，更新前先正交化（:func:`orthogonalize`），再加解耦的权重衰减。

    更新乘 ``0.2·√max(m, n)``，让它的均方根与 AdamW 的更新相近，两个优化器就能共用一张学习率表
    （Liu et al., "Muon is Scalable for LLM Training", 2025）。只收二维参数；存档里每个参数一个 ``momentum_buffer``。
    参考：Jordan et al., "Muon: An optimizer for hidden layers in neural networks", 2024。
    """

    def __init__(self, params, lr: float, weight_decay: float, momentum: float = 0.95):
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "momentum": momentum})

    @torch.no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["momentum_buffer"] = torch.zeros_like(p)
                buf = state["momentum_buffer"]
                buf.lerp_(p.grad, 1 - momentum)
                update = orthogonalize(p.grad.lerp(buf, momentum))  # Nesterov：沿动量再往前看一步
                p.mul_(1 - lr * group["weight_decay"])
                p.add_(update, alpha=-lr * 0.2 * math.sqrt(max(p.shape)))


class MuonWithAdamW:
    """两个优化器当一个用：训练循环只调 param_groups、step、zero_grad，存档只调 state_dict 与 load_state_dict。"""

    def __init__(self, muon: torch.optim.Optimizer, adamw: torch.optim.AdamW):
        self.parts = {"muon": muon, "adamw": adamw}

    @property
    def param_groups(self) -> list[dict]:
        return [g for part in self.parts.values() for g in part.param_groups]

    def step(self) -> None:
        for part in self.parts.values():
            part.step()

    def zero_grad(self, set_to_none: bool = True) -> None:
        for part in self.parts.values():
            part.zero_grad(set_to_none=set_to_none)

    def state_dict(self) -> dict:
        return {name: part.state_dict() for name, part in self.parts.items()}

    def load_state_dict(self, state: dict) -> None:
        for name, part in self.parts.items():
            part.load_state_dict(state[name])


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
        CheckpointError: 存档的模型尺寸与 config.model 不同、只有权重没有优化器与随机数状态，或训练设置坏了。
    """
    saved = state["train_config"].get("model")
    if saved != config.model:
        raise CheckpointError(
            f"{ckpt_path} 里的模型尺寸是 {saved}，与要训练的 {config.model} 不同，"
            "不能接着训练；请换一个 --out，或用与存档相同的预设与尺寸"
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


def build_model(
    model_config: ModelConfig, config: TrainConfig, device: torch.device, state: dict | None = None
) -> tuple[PoetryGPT, torch.optim.AdamW]:
    """按种子新建模型与优化器；给了存档 state（续训）时放回权重、优化器与随机数状态。

    随机数状态最后才放回：新建模型和优化器会用掉随机数，放回之后接下来的取批、dropout 与没停过的一样（第 18 课）。
    """
    torch.manual_seed(config.seed)
    random.seed(config.seed)
    model = PoetryGPT(model_config).to(device)
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

    每步见 :meth:`poetry_gpt.trainer.Trainer.step`。在 torchrun 下（环境变量 WORLD_SIZE > 1）每个进程取这一批中属于自己的一份，
    用 DistributedDataParallel 把梯度平均；损失按全批的计分字数加权，所以结果与单进程算整批相同。

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
    config = replace(config, steps=steps) if steps is not None else config
    step, log = (state["step"], state["log"]) if resume else (0, [])
    if step >= config.steps:
        raise ValueError(f"存档已经训练到第 {step} 步，达到了总步数 {config.steps}；要多训练，请给更大的 --steps")
    model, optimizer = build_model(model_config, config, workers.device, state)  # 存档的尺寸上面已确认相同
    sittings = Sittings(Path(out), step, list(state.get("sittings", [])) if resume else [])
    trainer = Trainer(model, optimizer, workers, precision, tokenizer, ckpt_path, sittings)
    samples = _samples(config, tokenizer, announce=progress and workers.rank == 0)
    stops = Stops(stop_at, stop_after, minutes)
    return _loop(trainer, config, step, log, samples, stops, progress=progress and workers.rank == 0)


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
    return TrainingSamples(config, tokenizer), encode_split("val", tokenizer, config.eval_poems)


def _loop(
    trainer: Trainer,
    config: TrainConfig,
    step: int,
    log: list,
    samples: tuple[TrainingSamples, list[list[int]]],
    stops: Stops,
    *,
    progress: bool,
) -> Run:
    """训练循环：从第 step 步走到总步数（或 stops 说的那一步、那一刻），每 eval_every 步验证并存档；
    Ctrl-C 时存好档返回。"""
    train_samples, val_samples = samples
    dev = trainer.workers.device
    last = stops.last_step(config.steps)
    bar = ProgressBar(step, last, enabled=progress)
    started = last_sample = trainer.sittings.begin(time.monotonic(), config.steps, stops.minutes)
    planner = None
    if stops.minutes is not None:  # 分几次训练完时只量一次：总步数从第一次起就定下，以后每次照它走
        planner = MinutesPlanner(
            stops.minutes,
            started,
            config.eval_every,
            validation_steps=VALIDATION_COST * math.ceil(config.eval_poems / config.batch_size),
            once=stops.stop_after is not None,
        )
    chars, interrupted = 0, False
    trainer.model.train()
    try:
        with bar:
            for line in _start_text(trainer, config, step, last, stops, log):
                bar.print(line)
            while step < last and not stops.time_is_up(started, time.monotonic()):
                if planner is not None and (plan := planner.replan(step, time.monotonic())) is not None:
                    config, last = _reschedule(plan, step, config, stops, planner, trainer.workers, bar)
                lr = learning_rate(step, config)
                loss, n_chars = trainer.step(train_samples.batch(step, config), lr, config.grad_clip)
                step += 1
                chars += n_chars
                stepped = time.monotonic()  # 之后的验证与存档不算进每步用时（--minutes 另算它们）
                entry = {"step": step, "loss": round(loss.item(), 5), "lr": lr}
                validate = step % config.eval_every == 0 or step == config.steps
                if validate:
                    entry["val"] = round(mean_cross_entropy(trainer.model, val_samples, dev), 5)
                log.append(entry)
                speed = chars / max(time.monotonic() - started, 1e-9)
                bar.update(step, entry, speed)
                if validate:  # 验证的结果留在进度条上方，并顺手存一次档
                    bar.print(
                        f"第 {step} 步：损失 {entry['loss']:.3f}，验证 {entry['val']:.3f} 奈特/字，"
                        f"学习率 {lr:.2e}，{speed:,.0f} 字/秒，已用 {(time.monotonic() - started) / 60:.1f} 分钟"
                    )
                    trainer.save(step, config, log, time.monotonic())
                    if planner is not None:
                        planner.paused(time.monotonic() - stepped)
                if (
                    trainer.workers.rank == 0
                    and config.sample_every_s
                    and time.monotonic() - last_sample > config.sample_every_s
                ):
                    last_sample = time.monotonic()
                    bar.print(trainer.sample_line(step))
    except KeyboardInterrupt:
        interrupted = True
    except TooShort:
        trainer.sittings.note(f"没有训练：量完前 {PLAN_AT} 步，{stops.minutes:g} 分钟排不出足够的步数，没有写存档")
        raise
    trainer.save(step, config, log, time.monotonic())
    if step < config.steps and stops.stop_after is not None and not interrupted:
        trainer.snapshot(snapshot_name(step))
    trainer.end_sitting(step, config.steps, log, interrupted, time.monotonic())
    trainer.workers.barrier()
    return Run(step=step, log=log, total=config.steps, interrupted=interrupted, checkpoint=trainer.ckpt_path)


def _start_text(trainer: Trainer, config: TrainConfig, step: int, last: int, stops: Stops, log: list) -> list[str]:
    """开始时留在进度条上方的几行：在哪里、怎样训练；续训时还有走到了哪里；分几次时这一次训练多久。"""
    if stops.minutes is None:
        plan = f"第 {step} → {last} 步"
    else:
        plan = f"先量前 {PLAN_AT} 步的用时，再按 {stops.minutes:g} 分钟排定总步数"
    lines = [
        f"在 {trainer.workers.device.type.upper()} 上训练（{trainer.workers.world} 个进程），精度 {trainer.precision}，"
        f"每步 {config.batch_size} 首诗，{plan}"
    ]
    if step > 0:
        lines.append(trainer.sittings.where_we_stand(config.steps, log, stops.stop_after))
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
) -> tuple[TrainConfig, int]:
    """按 planner 排定的总步数改 config.steps，返回 (新的 config, 循环停在第几步)。各进程量出的时间略有不同，
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
        config = replace(config, warmup=scaled_warmup(total, config.warmup))
    config = replace(config, steps=total)
    said = planner.describe(step, per_step, total, config.warmup) if planner.worth_saying(total) else None
    bar.plan(stops.last_step(total), said)
    return config, stops.last_step(total)
