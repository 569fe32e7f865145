"""第 07 课实验：二元统计模型与交叉熵基线。在仓库根目录执行 .venv/bin/python lessons/07/experiment.py。"""

import math
import time

import torch

from poetry_gpt.bigram import DEFAULT_K, BigramModel, scored_pairs, uniform_cross_entropy
from poetry_gpt.data import SEP, default_tokenizer, load_poems, split_lines
from poetry_gpt.labs import measured, setup_experiment, show, table

setup_experiment()

tok = default_tokenizer()
V = len(tok)

# 1. 在训练集上数数
started = time.perf_counter()
model = BigramModel.fit(load_poems("train"), tok, DEFAULT_K)
show("数完用时（秒）", measured(time.perf_counter() - started), digits=1)
show("计入损失的 (前一个, 目标) 对", int(model.row_totals.sum()))
show("其中不同的对", len(model.keys))
show("占 V×V 个格子的比例", len(model.keys) / V**2)
show("稀疏存放的大小（MB）", (model.keys.numel() * 8 + model.counts.numel() * 4) / 1e6, digits=1)
show("稠密 V×V float32 表的大小（MB）", V * V * 4 / 1e6, digits=1)


# 2. 一行计数变成一行概率
def top_next(prev, n=6):
    row = model.next_distribution(prev)
    p, j = row.topk(n)
    counts = model.pair_counts(torch.full_like(j, prev), j)
    return [[tok.tokens[jj], int(c), pp] for jj, c, pp in zip(j.tolist(), counts.tolist(), p.tolist())]


moon = tok.stoi["明"]
show("“明”后面一共跟过几次", int(model.row_totals[moon]))
table(["下一个", "次数", "P(下一个 | 明)"], top_next(moon), title="“明”的下一个字")
table(["第一个字", "次数", "P(字 | <sep>)"], top_next(SEP), title="正文的第一个字（前一个是 <sep>）")
never = tok.stoi["鲸"]
show("“明鲸”在训练集里出现", int(model.pair_counts(torch.tensor([moon]), torch.tensor([never]))))
show(
    f"平滑后 P(鲸 | 明) = k / ({int(model.row_totals[moon])} + k·V)",
    model.probability(torch.tensor([moon]), torch.tensor([never])).item(),
    digits=8,
)
show("这一行加起来", model.next_distribution(moon).sum())

# 3. 在 val 上挑平滑量 k
val_prev, val_target = scored_pairs(load_poems("val"), tok)
show("val 里计入损失的目标个数", len(val_prev))
rows = [
    [k, model.with_k(k).pairs_cross_entropy(val_prev, val_target)] for k in (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
]
table(["k", "val 交叉熵（奈特/字）"], rows, title="在 val 上挑 k")
best_k = min(rows, key=lambda r: r[1])[0]
show("交叉熵最低的 k（即 DEFAULT_K）", best_k)

# 4. 基线：以后每个模型都和这个数比
ce = model.pairs_cross_entropy(val_prev, val_target)
target_counts = torch.zeros(V).index_add_(0, model.keys % V, model.counts)  # 只看目标、不看前一个字
unigram = -((target_counts[val_target] + DEFAULT_K) / (target_counts.sum() + DEFAULT_K * V)).log().mean().item()
table(
    ["模型", "val 交叉熵（奈特/字）", "困惑度 e^交叉熵"],
    [
        ["每个编号等概率（ln V）", uniform_cross_entropy(tok), V],
        ["一元：只看字频", unigram, math.exp(unigram)],
        [f"二元：看前一个字（k = {DEFAULT_K}）", ce, math.exp(ce)],
    ],
    title="二元基线",
)

# 5. 让它写几首“诗”：平滑量适合打分，却不一定适合抽样
for k in (DEFAULT_K, 1e-6):
    gen = torch.Generator().manual_seed(26)
    for form, keyword in (("五言绝句", "月"), ("七言绝句", "春"), ("七言绝句", "山")):
        text = model.with_k(k).sample(form, keyword, generator=gen)
        sizes = [len(line) for line in split_lines(text)]
        show(f"k = {k:g}  {form}·{keyword}", f"{text}    每句字数 {sizes}")
