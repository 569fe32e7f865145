"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/15/experiment.py。"""

import math
import time

import torch
from torch.nn import functional as F

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import SEP, default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.labs import below, measured, setup_experiment, show, table
from poetry_gpt.loss import chunked_cross_entropy, scored_loss
from poetry_gpt.model import IGNORE_INDEX, ModelConfig, PoetryGPT

setup_experiment()

tok = default_tokenizer()
model, _ = load_model()  # 随课程发布的模型（fp16 存档，读进来是 fp32）
V = model.config.vocab_size

# 1. 一个位置上的交叉熵：logits → log-softmax → 取正确答案那一格 → 取负
poem = load_poems("val", 512)[0]
ids = encode_sample(poem, tok)
x, y, mask = make_batch([ids])  # [1, T]
with torch.no_grad():
    logits, _ = model(x)  # [1, T, V]
t = ids.index(SEP) + 1  # 正文第 2 个字的预测：前文到正文第 1 个字为止
z = logits[0, t]  # [V]
log_probs = z - z.max() - (z - z.max()).exp().sum().log()  # 减去最大值再算，不会溢出
show("第一首诗", poem["text"])
show(f"位置 {t} 读到", tok.decode(ids[: t + 1]))
show("正确答案（下一个字）", tok.tokens[y[0, t]])
top = log_probs.topk(5)
table(
    ["名次", "字", "分数 logits", "概率", "−ln 概率（奈特）"],
    [
        [i + 1, tok.tokens[j], z[j].item(), math.exp(lp), -lp]
        for i, (lp, j) in enumerate(zip(top.values.tolist(), top.indices.tolist()))
    ],
    title="模型在这个位置给的前 5 个字",
)
rank = int((z > z[y[0, t]]).sum()) + 1
show("正确答案的名次、分数与概率", f"第 {rank} 名，{z[y[0, t]].item():.4f}，{log_probs[y[0, t]].exp().item():.4f}")
show("这个位置的交叉熵 −ln p（奈特）", -log_probs[y[0, t]])
show("与 F.cross_entropy 相同", torch.allclose(-log_probs[y[0, t]], F.cross_entropy(z[None], y[0, t : t + 1])))
first_logits, first_y, first_mask = logits[0], y[0], mask[0]

# 2. 一批真诗：只在正文与 <eos> 上求平均
poems = load_poems("val", 512)  # 训练时验证用的同一组 512 首
x, y, mask = make_batch([encode_sample(p, tok) for p in poems])
W = model.characters.weight.detach()  # 输出层就是这张表（输入输出共享表）
with torch.no_grad():
    hidden = model.hidden_states(x).flatten(0, 1)  # [B·T, C]
    every = torch.cat(
        [
            -(h @ W.T).log_softmax(-1).gather(-1, t[:, None]).squeeze(-1)  # 每格的 −ln p
            for h, t in zip(hidden.split(2048), y.flatten().split(2048))
        ]
    ).view(y.shape)
    fast_loss = scored_loss(model, x, y, mask)  # 训练步与验证用的算法（本课第 5 部分）
by_hand = every[mask].sum() / mask.sum()  # 除以掩码里 True 的个数
sep_col = (x == SEP).int().argmax(1)  # 每行 <sep> 在第几列
condition = (torch.arange(x.shape[1]) < sep_col[:, None]) & ~mask & (x != 0)  # 条件区里的目标
table(
    ["算在哪些格子上", "格子数", "交叉熵（奈特/字）"],
    [
        ["正文与 <eos>（掩码为 True）", int(mask.sum()), by_hand.item()],
        ["条件区（<form>、关键词、<sep>）", int(condition.sum()), every[condition].mean().item()],
        ["全部 B×T 格（连补齐的格子）", mask.numel(), every.mean().item()],
    ],
    title=f"随课程发布的模型，val 里均匀取的 {len(poems)} 首",
)
show("训练步用的 scored_loss(model, x, y, mask)", fast_loss)
row_means = torch.stack([every[b][mask[b]].mean() for b in range(len(poems))]).mean()
show("错的平均法：先每首求平均再平均", row_means)
show("错的平均法：乘掩码后除以 B×T", (every * mask).sum() / mask.numel())
with torch.no_grad():  # ignore_index：把不计分的目标换成 -100
    _, ignored = model(x[:32], y[:32].masked_fill(~mask[:32], IGNORE_INDEX))  # forward 里是 F.cross_entropy
show("前 32 首：model(x, 目标里不计分的换成 -100) / 手算", [ignored.item(), (every[:32][mask[:32]]).mean().item()])

# 3. 单位：奈特、比特与困惑度；一无所知时是 ln V
ce = by_hand.item()
untrained = PoetryGPT(ModelConfig(vocab_size=V)).eval()
with torch.no_grad():
    fresh = scored_loss(untrained, x[:128], y[:128], mask[:128])
    z0 = untrained(x[:8])[0][mask[:8]]  # 前 8 首计分格子上的分数 [N, V]
show(
    "未训练的模型的分数：标准差 / 每格最大减最小（平均）",
    [z0.std().item(), (z0.max(-1).values - z0.min(-1).values).mean().item()],
)
table(
    ["模型", "奈特/字", "比特/字", "困惑度 e^交叉熵"],
    [
        ["每个编号等概率（ln V）", math.log(V), math.log2(V), V],
        ["未训练的 PoetryGPT（前 128 首）", fresh.item(), fresh.item() / math.log(2), math.exp(fresh.item())],
        ["二元基线（第 07 课，val 全部 4924 首）", 5.6274, 5.6274 / math.log(2), math.exp(5.6274)],
        ["随课程发布的模型（这 512 首）", ce, ce / math.log(2), math.exp(ce)],
    ],
    title="同一把尺子：正文与 <eos>",
)

# 4. 梯度：交叉熵对 logits 的梯度 = (softmax − one-hot) / N
z = first_logits[first_mask][:6].clone().requires_grad_()  # 第一首诗的前 6 个计分位置 [6, V]
target = first_y[first_mask][:6]
F.cross_entropy(z, target).backward()
formula = (z.detach().softmax(-1) - F.one_hot(target, V)) / len(target)
show("autograd 的梯度与 (softmax − one-hot)/N 最大相差", below((z.grad - formula).abs().max(), "1e-6"))
show("第一个位置：正确答案那一格的梯度（p − 1）/ N", z.grad[0, target[0]])
show("第一个位置：梯度为正（要压低）的格子数", int((z.grad[0] > 0).sum()))
show("每一行梯度之和（应为 0），最大的绝对值", below(z.grad.sum(-1).abs().max(), "1e-6"))

# 5. 训练用的快路：只在计分位置上、分块算输出层与交叉熵
poems = load_poems("train", 4000)[:128]  # 训练时一步的量：128 首
x, y, mask = make_batch([encode_sample(p, tok) for p in poems])
with torch.no_grad():
    all_hidden = model.hidden_states(x).flatten(0, 1)  # [B·T, C]：每个格子
hidden, targets = all_hidden[mask.flatten()], y[mask]  # [N, C]：只留计分的格子
N, C = hidden.shape
show("这一批计分的格子占全部格子", f"{N} / {mask.numel()} = {N / mask.numel():.1%}")


def run(way):
    h = (all_hidden if way == "all" else hidden).clone().requires_grad_()
    w = W.clone().requires_grad_()
    if way == "all":  # 每个格子都算，不计分的目标给 -100
        loss = F.cross_entropy(h @ w.T, y.masked_fill(~mask, IGNORE_INDEX).flatten())
    else:
        loss = chunked_cross_entropy(h, w, targets) if way == "chunked" else F.cross_entropy(h @ w.T, targets)
    loss.backward()
    return loss.detach(), h.grad, w.grad


plain, chunked = run("scored"), run("chunked")
gap = lambda a, b: f"{(a - b).abs().max().item():.1e}"
table(
    ["比较", "最大相差"],
    [
        ["损失", below((plain[0] - chunked[0]).abs(), "1e-5")],
        ["对 hidden 的梯度 [N, C]", measured(gap(plain[1], chunked[1]))],
        ["对 W 的梯度 [V, C]", measured(gap(plain[2], chunked[2]))],
    ],
    title=f"分块与普通写法（N = {N}, V = {V}）",
)
show("普通写法整块 logits [N, V] 占内存（MB，1 MB = 10⁶ 字节）", N * V * 4 / 1e6, digits=1)
show("分块写法的缓冲区 [512, V] 占内存（MB）", 512 * V * 4 / 1e6, digits=1)
ways = {"all": "每个格子都算（整块）", "scored": "只算计分的格子（整块）", "chunked": "只算计分的格子（分块）"}
times = {}
for way in ways:  # 上面两种已各跑过一次（热身），这里各计时一次
    start = time.perf_counter()
    run(way)
    times[way] = time.perf_counter() - start
table(
    ["输出层与交叉熵的写法", "前向加反向（秒）", "加速比（第一行的用时 ÷ 本行）"],
    [[label, measured(times[way]), measured(times["all"] / times[way])] for way, label in ways.items()],
    title=f"{len(poems)} 首训练诗，同一进程依次计时（数字随机器与负载而变）",
    digits=3,
)
