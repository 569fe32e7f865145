"""一次训练的设置 :class:`TrainConfig` 与 ``./poet train --preset`` 的三个预设 :data:`PRESETS`（第 16–19、26 课）。

只用标准库（不导入 torch）：训练循环（poetry_gpt/train.py）、取批（poetry_gpt/batches.py）与存档都读它，谁也不必绕着导入。
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from .common import COURSE_SEED
from .settings import OPTIMIZERS, PRECISIONS, SCHEDULES


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
        optimizer: ``"adamw"``（第 16 课）或 ``"muon"``：Block 里的矩阵用 :class:`poetry_gpt.muon.Muon`（动量先正交化再更新），
            字表、位置表、偏置与 LayerNorm 仍用 AdamW；两者用同一个学习率（Muon 按 AdamW 的更新幅度换算）。
        min_steps: 给了 ``--minutes`` 时，排定的步数少于它就不训练，先说明怎么办（见
            :meth:`poetry_gpt.time_budget.MinutesPlanner.too_short`）：这么短的训练学不到什么。
        start_from: 微调（fine-tuning，第 26 课）：从这个模型文件的权重开始，而不是随机初始化；model 的尺寸要与它相同。
            优化器的状态从零开始。None 表示从头训练。
        author: 只用这位诗人的绝句：train 里的训练，val 里的验证（``data.load_poems`` 的 author）。
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
    start_from: str | None = None
    author: str | None = None


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

FINETUNE = TrainConfig(
    batch_size=32,
    lr=3e-4,
    eval_poems=512,
    fresh_keywords=True,
)
"""``./poet train --author`` 的微调设置（第 26 课）：从一个训练好的模型开始（``start_from``），只用一位诗人的绝句，
关键词与训练随课程发布的模型时一样每步重抽。学习率是从头训练的十分之一：只想挪一挪模型已经会的东西，不想把它冲掉。
尺寸、步数、预热与验证间隔由 :func:`finetune_config` 按起点模型与这位诗人的诗数填上。
学习率、轮数与批大小按 data/MODEL.md“微调成一位诗人”的测量选定。"""

FINETUNE_EPOCHS = 1.0
"""微调把这位诗人在 train 里的诗读几遍：起点模型都见过这些诗，再读一遍多，它就开始背原诗，他留在 val 里的诗反而变差
（data/MODEL.md“微调成一位诗人”）。"""


def finetune_config(model_config: dict, start_from: str, author: str, n_poems: int) -> TrainConfig:
    """微调的设置：:data:`FINETUNE`，尺寸取起点模型存档里的 model_config（vocab_size 由汉字表决定，不抄进来），
    步数是把 n_poems 首诗读 :data:`FINETUNE_EPOCHS` 遍，预热占 5%，验证 4 次。"""
    steps = max(1, math.ceil(FINETUNE_EPOCHS * n_poems / FINETUNE.batch_size))
    return replace(
        FINETUNE,
        model={k: v for k, v in model_config.items() if k != "vocab_size"},
        start_from=start_from,
        author=author,
        steps=steps,
        warmup=max(1, round(0.05 * steps)),
        eval_every=max(1, steps // 4),
    )
