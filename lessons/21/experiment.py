"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/21/experiment.py。"""

import sys

import torch

from poetry_gpt.checkpoint import CheckpointError, load_model
from poetry_gpt.constraints import hanzi_mask
from poetry_gpt.data import BOS, SEP, default_tokenizer, form_of
from poetry_gpt.generate import write_one
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.sampling import SamplingConfig, filter_logits, sample_next

setup_experiment()

tok = default_tokenizer()
try:
    model, _ = load_model()  # data/model.pt：随课程发布的模型
except CheckpointError as e:
    sys.exit(f"读不了随课程发布的模型：{e}")


def bar(p, scale):
    """概率画成一条横条：scale 画满 30 格。"""
    cells = p / scale * 30
    return "█" * int(cells) + ("▌" if cells - int(cells) >= 0.5 else "")


def bars(probs, title, n=12, mark=None):
    """概率最高的 n 个字画成横条；mark 是要特别标出的字。"""
    top = torch.topk(probs, n)
    scale = top.values[0].item()
    table(
        ["名次", "字", "概率", ""],
        [
            [r + 1, tok.tokens[i] + (" ←" if tok.tokens[i] == mark else ""), f"{p:.4f}", bar(p, scale)]
            for r, (p, i) in enumerate(zip(top.values.tolist(), top.indices.tolist()))
        ],
        title=title,
    )


def rank_and_p(probs, ch):
    i = tok.stoi[ch]
    return int((probs > probs[i]).sum()) + 1, probs[i].item()


# 种子 26 写的诗，第四句最后一个字之前（第 01 课也用种子 26，但加了格式约束，写出的诗不同）。
# 本课只看采样本身，所以写诗时不加格式约束（constrained=False）：
# 每一步就是“除以温度 → top-k → top-p → 抽一个”，没有别的规则改动分布
poem = write_one(model, tok, "月", seed=26, constrained=False)
prefix, answer = poem.text[:-2], poem.text[-2]
ids = [BOS, form_of(line_length=poem.form).token] + tok.encode("月") + [SEP] + tok.encode(prefix)
with torch.no_grad():
    logits = model(torch.tensor([ids]))[0][0, -1]  # [V]
show("前文（正文部分）", prefix)
show("诗里实际写的字", answer)

# 1. 原始分布：温度 1，不截断
raw = torch.softmax(logits, -1)
bars(raw, "1. 原始概率（温度 1，不截断）", mark=answer)
rank, p = rank_and_p(raw, answer)
show(f"“{answer}”的名次与概率", f"第 {rank} 名，{p:.4f}")

# 2. 温度：logits 除以 T 再 softmax
rows = []
for T in (0.5, 0.8, 1.0, 1.5):
    probs = torch.softmax(logits / T, -1)
    rank, p = rank_and_p(probs, answer)
    top5 = torch.topk(probs, 5)
    rows.append(
        [
            f"{T:g}",
            f"{top5.values[0].item():.4f}",
            f"{top5.values.sum().item():.4f}",
            f"{p:.4f}",
            rank,
            f"{-(probs * probs.clamp_min(1e-30).log()).sum().item():.2f}",
        ]
    )
table(
    ["温度 T", "第 1 名的概率", "前 5 名合计", f"“{answer}”的概率", f"“{answer}”的名次", "熵（奈特）"],
    rows,
    title="2. 温度：除以 T 只改变高低差，不改变名次",
)

# 3. 默认设置 0.8 / 40 / 0.95：依次做温度、top-k、top-p
T, K, P = 0.8, 40, 0.95
scaled = logits / T
after_k = filter_logits(scaled, top_k=K)
after_p = filter_logits(scaled, top_k=K, top_p=P)
probs_t = torch.softmax(scaled, -1)
top7 = torch.topk(probs_t, 7)
show(
    "温度 0.8 之后的前 7 名", [f"{tok.tokens[i]} {p:.3f}" for p, i in zip(top7.values.tolist(), top7.indices.tolist())]
)
show("温度 0.8 之后，前 40 名的概率合计", probs_t[torch.isfinite(after_k)].sum().item())
show("top-k = 40 之后还剩几个字", int(torch.isfinite(after_k).sum()))
kept_probs = torch.softmax(after_k, -1)
order = torch.sort(after_k, descending=True, stable=True).indices
cum = torch.cumsum(kept_probs[order], -1)
n_p = int(torch.isfinite(after_p).sum())
show("在这 40 个字里重新归一化，再做 top-p = 0.95：还剩几个字", n_p)
show("最后留下的那个字前面的概率之和（< 0.95）", (cum[n_p - 1] - kept_probs[order[n_p - 1]]).item())
show("第一个被丢掉的字前面的概率之和（≥ 0.95）", (cum[n_p] - kept_probs[order[n_p]]).item())
final = torch.softmax(after_p, -1)
bars(final, "3. 真正抽样用的概率（温度 0.8 → top-k 40 → top-p 0.95）", mark=answer)
rank, p = rank_and_p(final, answer)
show(f"“{answer}”在抽样分布里", f"第 {rank} 名，概率 {p:.4f}（原始 {rank_and_p(raw, answer)[1]:.4f}）")
show("不是汉字的编号（标点、特殊标记）在这一步原始分布里的概率合计", raw[~hanzi_mask(tok)].sum().item(), digits=6)

# 4. 顺序与并列
print()
print("4. 顺序与并列")
wrong_order = filter_logits(filter_logits(scaled, top_p=P), top_k=K)
show("先 top-p 再 top-k：还剩几个字（正确顺序是上面的数）", int(torch.isfinite(wrong_order).sum()))
untempered = filter_logits(logits, top_k=K, top_p=P)
show("不除温度（T = 1）做同样的截断：还剩几个字", int(torch.isfinite(untempered).sum()))
small = torch.tensor([3.0, 2.0, 1.0, 2.0, 0.0])
show(
    "分数 [3, 2, 1, 2, 0]，top-k = 2 留下的编号",
    torch.isfinite(filter_logits(small, top_k=2)).nonzero().flatten().tolist(),
)
flat = torch.tensor([0.0, -60.0, 0.0, 0.0, 0.0])
show(
    "四个并列的字各 1/4（编号 0、2、3、4），top-p = 0.5 留下的编号",
    torch.isfinite(filter_logits(flat, top_p=0.5)).nonzero().flatten().tolist(),
)
show(
    "同一行，top-p = 0.01 留下的编号（第一个总会留下）",
    torch.isfinite(filter_logits(flat, top_p=0.01)).nonzero().flatten().tolist(),
)
g = torch.Generator().manual_seed(0)
show("温度 0：sample_next 取的编号与 argmax 相同", sample_next(logits, 0, K, P, g) == int(logits.argmax()))

# 5. 同一个提示，几种设置
print()
print("5. 关键词“月”，七言，不加格式约束，种子 0–4")
settings = [(0, None, None), (0.5, 40, 0.95), (0.8, 40, 0.95), (1.0, None, None), (1.5, None, None), (1.5, 40, 0.95)]
rows = []
for T, K_, P_ in settings:
    texts = [
        write_one(model, tok, "月", form=7, sampling=SamplingConfig(T, K_, P_), seed=s, constrained=False).text
        for s in range(5)
    ]
    show(f"温度 {T:g}，top-k {K_ or '不截'}，top-p {P_ or '不截'}", texts[0])
    chars = [[ch for ch in t if ch not in "，。？！"] for t in texts]
    distinct = sum(len(set(c)) for c in chars) / len(texts)
    shaped = sum(len(t) == 32 and all(t[i] in "，。？！" for i in (7, 15, 23, 31)) for t in texts)
    rows.append([f"{T:g}", K_ or "不截", P_ or "不截", f"{distinct:.1f}", shaped, len(set(texts))])
table(
    ["温度", "top-k", "top-p", "不同的字", "合格式", "不同的诗"],
    rows,
    title="每种设置 5 首：不同的字（平均）、四句七言格式对的首数、有几首不同",
)

# 6. 种子 26 那首诗里，每一步默认设置留下几个候选
ids = [BOS, form_of(line_length=poem.form).token] + tok.encode("月") + [SEP] + tok.encode(poem.text)
with torch.no_grad():
    steps = model(torch.tensor([ids]))[0][0, 3:-1]  # 正文每一格的 logits [正文字数, V]
sizes = [int(torch.isfinite(filter_logits(row / 0.8, 40, 0.95)).sum()) for row in steps]
print()
show("6. 开头那首诗（种子 26）", poem.text)
show("每一步默认设置留下的候选个数", sizes)
show("正好 40 个（top-k 说了算）的步数", sum(s == 40 for s in sizes))
show("只剩 1 个的步数", sum(s == 1 for s in sizes))
show("留下的候选最多、最少（不算只剩 1 个的）", [max(sizes), min(s for s in sizes if s > 1)])
