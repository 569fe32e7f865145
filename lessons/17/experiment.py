"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/17/experiment.py。"""

import torch

from poetry_gpt.batches import batch_indices, encode_split
from poetry_gpt.data import default_tokenizer, make_batch
from poetry_gpt.devices import resolve_precision
from poetry_gpt.labs import line_plot, measured, setup_experiment, show, table
from poetry_gpt.loss import mean_cross_entropy, scored_loss
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.train import make_optimizer
from poetry_gpt.train_config import PRESETS

setup_experiment()

tok = default_tokenizer()
tiny = PRESETS["tiny"]  # 1 层、宽 32：几秒内看完一切

# 1. 取批：第 step 步取哪些诗只由 step 决定
train_samples = encode_split("train", tok, tiny.train_poems)
n, B = len(train_samples), tiny.batch_size
first = batch_indices(0, n, B, tiny.seed)
per_epoch = n // B
epoch0 = [i for s in range(per_epoch) for i in batch_indices(s, n, B, tiny.seed)]
show("train 里取的样本数 / 每步的诗数 / 一轮的步数", [n, B, per_epoch])
show("第 0 步的前 8 首（样本编号）", first[:8])
show("再算一次第 0 步，还是这一批", batch_indices(0, n, B, tiny.seed) == first)
show("第 0 轮各步取到的诗互不重复", len(set(epoch0)) == len(epoch0) == per_epoch * B)
show(f"第 {per_epoch} 步（第 1 轮开头）换了一种打乱", batch_indices(per_epoch, n, B, tiny.seed)[:8])
x, y, mask = make_batch([train_samples[i] for i in first])
show("x、y、mask 的形状 [B, T]", list(x.shape))

# 2. 拆开一步：清零梯度 → 前向 → 反向 → 按总范数裁剪 → 更新
torch.manual_seed(26)
model = PoetryGPT(ModelConfig(vocab_size=len(tok), **tiny.model)).train()
optimizer = make_optimizer(model, tiny)
optimizer.zero_grad(set_to_none=True)
loss = scored_loss(model, x, y, mask)
loss.backward()
norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}
total = sum(v * v for v in norms.values()) ** 0.5
show("这一步的损失（奈特/字）", loss)
table(
    ["参数", "梯度范数"],
    [[k, v] for k, v in sorted(norms.items(), key=lambda kv: -kv[1])[:4]],
    title=f"梯度范数最大的 4 个参数张量（共 {len(norms)} 个）",
)
show("总范数 √(Σ 各参数范数²)", total)
show("各参数范数之和（不是总范数）", sum(norms.values()))
returned = torch.nn.utils.clip_grad_norm_(model.parameters(), tiny.grad_clip)
show(
    "clip_grad_norm_ 返回的是裁剪之前的总范数；没超过上限，梯度原样不动",
    f"{returned.item():.4f}（上限 {tiny.grad_clip}）",
)
before = model.positions.weight.detach().clone()
optimizer.step()
show("optimizer.step() 之后位置表改变了", not torch.equal(before, model.positions.weight))

# 3. 先把一批背熟：同一批 8 首诗反复训练；记下每步裁剪前的总范数
batch = make_batch([train_samples[i] for i in first[:8]])
val = encode_split("val", tok, 128)
torch.manual_seed(26)
model = PoetryGPT(ModelConfig(vocab_size=len(tok), context_length=48, width=64, n_layers=2, n_heads=2))
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, betas=(0.9, 0.95), weight_decay=0.0)
val_start = mean_cross_entropy(model, val)
curve, totals, saved = [], [], None
for step in range(80):
    loss = scored_loss(model, *batch)
    curve.append((step, loss.item()))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    raw = [p.grad.clone() for p in model.parameters()]
    totals.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
    if saved is None and totals[-1] > 1.0:  # 第一次超过上限：留下裁剪前后的梯度
        saved = step, raw, [p.grad.clone() for p in model.parameters()]
    optimizer.step()
line_plot({"这一批的损失": curve}, width=60, height=10, title="同一批 8 首诗训练 80 步（奈特/字）")
show("第 0、20、40、79 步的损失", [curve[s][1] for s in (0, 20, 40, 79)])
show("val 128 首：训练前", val_start)
show("val 128 首：背熟这一批之后（第二位小数起随 CPU 而变，只印一位）", mean_cross_entropy(model, val), digits=1)
show("80 步里总范数超过 1.0、被裁剪的步数", sum(t > 1.0 for t in totals))

step, raw, clipped = saved
norms = [g.norm().item() for g in raw]
flat = lambda grads: torch.cat([g.flatten() for g in grads])
ratios = torch.cat([(c / g)[g != 0] for c, g in zip(clipped, raw)])
per_param = [g * min(1.0, 1.0 / (g.norm().item() + 1e-6)) for g in raw]
table(
    ["", "数值"],
    [
        ["裁剪前的总范数", totals[step]],
        ["各参数范数之和", sum(norms)],
        ["最大的三个单个参数范数", sorted(norms)[-3:][::-1]],
        ["裁剪后的总范数", flat(clipped).norm().item()],
        ["每个梯度乘的数（最小）", ratios.min().item()],
        ["每个梯度乘的数（最大）", ratios.max().item()],
        ["若逐个参数各自裁剪：被裁的参数个数", sum(v > 1.0 for v in norms)],
        ["逐个裁剪后的总范数", flat(per_param).norm().item()],
    ],
    title=f"第一次被裁剪的一步：第 {step} 步",
)

# 4. 验证：eval() 关掉 dropout，no_grad 不建计算图
x, y, mask = make_batch(val[:32])
drop = PoetryGPT(ModelConfig(vocab_size=len(tok), dropout=0.1, **tiny.model))
drop.train()
with torch.no_grad():
    a, b = scored_loss(drop, x, y, mask).item(), scored_loss(drop, x, y, mask).item()
show("dropout=0.1、train()：同一批算两次", [a, b])
drop.eval()
with torch.no_grad():
    a, b = scored_loss(drop, x, y, mask).item(), scored_loss(drop, x, y, mask).item()
show("dropout=0.1、eval()：同一批算两次", [a, b])
with torch.no_grad():
    quiet = scored_loss(drop, x, y, mask)
show("no_grad 里算的损失 requires_grad", quiet.requires_grad)
show(
    "ModelConfig 的 dropout 默认值 / base 预设设了 dropout 吗",
    [ModelConfig(vocab_size=1).dropout, "dropout" in PRESETS["base"].model],
)

# 5. 混合精度：矩阵乘法 bf16，权重、softmax 与损失仍是 fp32
# model 还是第 3 部分在 8 首诗上背熟的那个：val 损失很高，这里只比较两种精度之间的差别
show("这台机器上 precision=auto 选的是（随 CPU 而变）", measured(resolve_precision("auto", torch.device("cpu"))))
model.eval()
x, y, mask = make_batch(val[:32])
with torch.no_grad():
    full = scored_loss(model, x, y, mask)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        hidden = model.hidden_states(x)
        up = model.blocks[0].mlp.up(hidden)
        mixed = scored_loss(model, x, y, mask)
table(
    ["张量", "dtype"],
    [
        ["权重 characters", model.characters.weight.dtype],
        ["线性层 mlp.up 的输出", up.dtype],
        ["LayerNorm 之后的 hidden", hidden.dtype],
        ["损失", mixed.dtype],
    ],
    title="torch.autocast(bfloat16) 里",
)
show(
    "这一批的损失：fp32 / bf16 混合精度（末几位随 CPU 而变）", [measured(full.item()), measured(mixed.item())], digits=6
)
show("  两者相差不到 0.05", abs(full.item() - mixed.item()) < 0.05)
