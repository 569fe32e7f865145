"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/26/experiment.py。

一次真正的（很短的）训练，从选配置到写诗走一遍：按参数预算选宽度 → 训练 → 与随课程发布的模型、
二元基线在同一批 val 诗上比交叉熵 → 写几首诗。两个核上不到一分钟。
"""

import math
import tempfile
import time
from dataclasses import replace

import torch

from poetry_gpt.bigram import BigramModel
from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.generate import write_poems
from poetry_gpt.labs import measured, setup_experiment, show, table
from poetry_gpt.loss import ScoredLoss, mean_cross_entropy
from poetry_gpt.metrics import format_ok, keyword_hit
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.train import train
from poetry_gpt.train_config import PRESETS

setup_experiment()

tok = default_tokenizer()
V = len(tok)


def count(V, L, C, n):
    """第 14 课的公式：V·C + L·C + n(12C² + 13C) + 2C。"""
    return V * C + L * C + n * (12 * C * C + 13 * C) + 2 * C


def config_for_budget(budget, V, L, n_layers, n_heads):
    """本课练习的答案：能被头数整除、参数个数不超过预算的最大宽度，和那时的参数个数。"""
    C = n_heads
    if count(V, L, C, n_layers) > budget:
        raise ValueError("预算太小")
    while count(V, L, C + n_heads, n_layers) <= budget:
        C += n_heads
    return C, count(V, L, C, n_layers)


# 1. 预算 → 宽度：前文长度 64、4 层、4 头，预算从小到大
print(f"1. 按预算选宽度（V = {V}，L = 64，4 层，4 头）")
rows = []
for budget in (
    250_000,
    500_000,
    1_000_000,
    1_655_552,
    3_000_000,
    10_000_000,
):  # 1,655,552：ModelConfig 默认尺寸（4 层）
    C, n = config_for_budget(budget, V, 64, 4, 4)
    layers = 4 * (12 * C * C + 13 * C)
    rows.append([f"{budget:,}", C, f"{n:,}", f"{V * C / n:.0%}", f"{64 * C / n:.1%}", f"{layers / n:.0%}"])
table(
    ["预算", "宽度 C", "参数个数", "字向量表 V·C", "位置表 L·C", "4 层 Block"],
    rows,
    title="同样 4 层：预算小时，大半参数在字向量表里",
)
rows = []
for n_layers in (1, 2, 4, 8):
    C, n = config_for_budget(1_000_000, V, 64, n_layers, 4)
    rows.append([n_layers, C, f"{n:,}", f"{V * C / n:.0%}", f"{n_layers * (12 * C * C + 13 * C) / n:.0%}"])
table(["层数", "宽度 C", "参数个数", "字向量表 V·C", "全部 Block"], rows, title="同样 100 万的预算：层数越多，宽度越窄")
C_even = (V + 64 + 2 - 4 * 13) / (4 * 12)  # 4·(12C² + 13C) = (V + L + 2)·C 时的宽度
show("4 层时，宽度超过多少，全部 Block 的参数就多过两张表加最后的 LayerNorm", f"{C_even:.1f}", digits=1)

# 2. 公式与真正的模型一致（meta 设备上建模型，不占内存）
checks = []
for C, n_layers, n_heads in ((32, 1, 2), (88, 4, 4), (128, 4, 4)):
    with torch.device("meta"):
        real = PoetryGPT(ModelConfig(vocab_size=V, context_length=64, width=C, n_layers=n_layers, n_heads=n_heads))
    checks.append(real.num_parameters() == count(V, 64, C, n_layers))
show("公式与 PoetryGPT.num_parameters() 相同（宽 32/88/128）", checks)
try:
    PoetryGPT(ModelConfig(vocab_size=V, width=90, n_heads=4))
except (ValueError, AssertionError) as e:
    show("宽 90、4 头", f"{type(e).__name__}：{e}")

# 3. 真正训练一次：预算 24 万、前文长度 48、1 层、2 头 → 宽度 32，正是 tiny 预设的尺寸
print()
budget, L, n_layers, n_heads = 240_000, 48, 1, 2
C, n_params = config_for_budget(budget, V, L, n_layers, n_heads)
show(f"预算 {budget:,}（L={L}，{n_layers} 层，{n_heads} 头）选出的宽度", C)
show("参数个数", n_params)
show("其中字向量表 V·C 的份额", f"{V * C / n_params:.0%}")
config = replace(PRESETS["tiny"], model=dict(context_length=L, width=C, n_layers=n_layers, n_heads=n_heads))
show(
    "训练设置（tiny 预设）",
    f"{config.steps} 步，每步 {config.batch_size} 首，峰值学习率 {config.lr}，"
    f"用 train 里等距取的 {config.train_poems} 首，精度 {config.precision}",
)
with tempfile.TemporaryDirectory() as out:
    started = time.perf_counter()
    run = train(config, out, progress=False, tokenizer=tok)
    seconds = time.perf_counter() - started
    mine, _ = load_model(run.checkpoint, tok)
show("训练用时（秒，含准备数据与 3 次验证）", measured(seconds), digits=1)
table(
    ["步", "这一批的损失", f"验证损失（val 里等距取的 {config.eval_poems} 首）"],
    [[e["step"], e["loss"], e["val"]] for e in run.log if "val" in e],
    title="训练日志（奈特/字）",
    digits=3,
)

# 4. 同一批 val 诗上比：你的模型、随课程发布的模型、二元基线、均匀猜
print()
val = load_poems("val", 256)  # val 里等距取 256 首（./poet eval --val-poems 256 用的同一批）
samples = [encode_sample(p, tok) for p in val]
shipped, _ = load_model()
bigram = BigramModel.fit(load_poems("train"), tok)
rows = [
    ["均匀猜（ln V）", "—", math.log(V)],
    ["你的模型（刚训练的）", f"{mine.num_parameters():,}", mean_cross_entropy(mine, samples)],
    ["二元基线（第 07 课，k = 0.03）", "—", bigram.cross_entropy(val)],
    ["随课程发布的模型", f"{shipped.num_parameters():,}", mean_cross_entropy(shipped, samples)],
]
table(["模型", "参数个数", "交叉熵（奈特/字）"], rows, title=f"同一批 {len(val)} 首 val 诗，正文与 <eos>", digits=3)

# 5. 写一小本诗集：同样的关键词与种子，两个模型各写两首
print()
for name, model in (("你的模型", mine), ("随课程发布的模型", shipped)):
    for kw in ("月", "春"):
        for poem in write_poems(model, tok, kw, n=1, form=5, seed=26):
            show(
                f"{name}·{kw}",
                f"{poem.text}（格式合格：{format_ok(poem.text, 5)}，含“{kw}”：{keyword_hit(poem.text, kw)}）",
            )

# 6. 时间尺度：在本机量一步 base 尺寸的训练（fp32），再乘以 2800 步
print()
base = PRESETS["base"]
model = PoetryGPT(ModelConfig(vocab_size=V, **base.model))
step_loss = ScoredLoss(model)
batch = make_batch([encode_sample(p, tok) for p in load_poems("train", base.batch_size)])
times = []
for _ in range(2):
    started = time.perf_counter()
    step_loss(*batch).backward()
    times.append(time.perf_counter() - started)
per_step = times[1]  # 第一步含热身，不算
show("base 尺寸一步（每步 128 首，fp32，前向 + 反向，秒）", measured(per_step), digits=2)
show("乘以 2800 步的估计（分钟，本机、fp32，不含验证与优化器）", measured(per_step * base.steps / 60), digits=0)
