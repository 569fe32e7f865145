"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/11/experiment.py。"""

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import LINE_ENDS, PAD, SEP, default_tokenizer, encode_sample, load_poems, make_batch, split_lines
from poetry_gpt.labs import heatmap, measured, setup_experiment, show, table
from poetry_gpt.model import CausalAttention, ModelConfig, PoetryGPT
from poetry_gpt.probes import attention_weights

setup_experiment()

tok = default_tokenizer()
model = PoetryGPT(ModelConfig(vocab_size=len(tok))).eval()
block = model.blocks[0]
att = block.attention
C, H, D = model.config.width, att.n_heads, att.head_width

# 第 10 课用过的那一句：验证集里第一首七言绝句的第一句
val = load_poems("val")
poem = next(p for p in val if p["form"] == "七言绝句")
line = split_lines(poem["text"])[0]
T = len(line)
show("验证集里的一句", f"{line}（{poem['author']}《{poem['title']}》）")
ids = torch.tensor([tok.encode(line)])  # [1, T]
with torch.no_grad():
    h = block.norm1(model.characters(ids) + model.positions(torch.arange(T)))  # [1, T, C]

# 1. 拆头与合头：只是换个看法，数一个没变
with torch.no_grad():
    q, k, v = att.qkv(h).split(C, dim=-1)  # 各 [1, T, C]
    qh, kh, vh = att.split_heads(q), att.split_heads(k), att.split_heads(v)  # 各 [1, H, T, C/H]
    w = att.weights(qh, kh)  # [1, H, T, T]
    heads_out = w @ vh  # [1, H, T, C/H]
    merged = att.merge_heads(heads_out)  # [1, T, C]
    out = att.proj(merged)  # [1, T, C]
table(
    ["量", "形状", "说明"],
    [
        ["q", list(q.shape), "[B, T, C]：一个位置一条宽 C 的查询"],
        ["split_heads(q)", list(qh.shape), f"[B, H, T, C/H]：切成 H={H} 个头，每头宽 {D}"],
        ["weights", list(w.shape), "[B, H, T, T]：每个头一张注意力权重表"],
        ["weights @ v", list(heads_out.shape), "[B, H, T, C/H]：每个头各自汇总"],
        ["merge_heads", list(merged.shape), "[B, T, C]：各头的结果首尾相接"],
        ["proj", list(out.shape), "[B, T, C]：输出投影把各头的结果混在一起"],
    ],
    title="多头注意力的形状",
)
show("merge_heads(split_heads(q)) 与 q 完全相同", torch.equal(att.merge_heads(qh), q))
show("头 2 就是 q 的第 64–95 列", torch.equal(qh[0, 2], q[0, :, 2 * D : 3 * D]))

# 每个头只读自己那一段：把头 2 的 v 清零，合并后只有第 64–95 列变化
v_zeroed = v.clone()
v_zeroed[..., 2 * D : 3 * D] = 0
changed = (att.merge_heads(w @ att.split_heads(v_zeroed)) != merged)[0].any(0).nonzero().flatten()
show(
    "清零头 2 的 v 后，合并结果里变了的列",
    f"第 {changed.min().item()}–{changed.max().item()} 列，共 {changed.numel()} 列",
)

# 2. 未训练的模型：四个头几乎一样，都在平均分配
causal = torch.ones(T, T, dtype=torch.bool).tril()
uniform = causal / torch.arange(1, T + 1)[:, None]
show("未训练：各头与“平均分配”最多差", [(w[0, i] - uniform).abs().max().item() for i in range(H)])

# 3. 训练好的模型（data/model.pt）：第 0 层的几个头分了工没有
trained, _ = load_model()
first = trained.blocks[0]
heads = trained.config.n_heads  # 发布的模型的头数（上面未训练的小模型是 H 个）


def layer0_weights(ids):
    """训练好的第 0 层的注意力权重 [B, H, T, T]：与 CausalAttention.forward 同样先 norm1、再算 q、k
    （poetry_gpt/probes.py；第 10 课与课程网站的图也用它）。"""
    return attention_weights(trained, ids, layer=0)


# 模型训练时看到的是整条样本：条件区 <bos> <7> 关键词 <sep>，再接正文。取到第一句末尾为止；
# 因果遮挡让这些行与整首诗一起算时完全相同
sample = encode_sample(poem, tok)
start = sample.index(SEP) + 1
ids = torch.tensor([sample[: start + T]])  # [1, 12]
labels = [tok.tokens[i] for i in ids[0].tolist()]
show("训练好的模型看到的输入", " ".join(labels))
wt = layer0_weights(ids)[0, :, start:]  # [heads, 7, 12]：只看正文这 7 行
for i in range(heads):
    heatmap(wt[i], list(line), labels, title=f"训练好的层 0、头 {i}（行：正文的字；列：它能看到的全部位置）")
table(
    ["位置", "字"] + [f"头 {i}" for i in range(heads)],
    [
        [t, line[t]]
        + [f"{labels[j]}\n{wt[i, t, j].item():.2f}" for i in range(heads) for j in [wt[i, t].argmax().item()]]
        for t in range(T)
    ],
    title=f"同一个字，{heads} 个头各把最大的权重给了谁（格子里：最看重的位置，它的权重）",
)

# 一句话不够下结论：在验证集前 1000 首诗的全部正文位置上平均
samples = [encode_sample(p, tok) for p in val[:1000]]
x, _, _ = make_batch(samples)  # [B, T]，句尾补 <pad>
w_all = layer0_weights(x)  # [B, heads, T, T]
B, L = x.shape
pos = torch.arange(L)
sep = (x == SEP).int().argmax(1)  # 每首诗 <sep> 的位置 [B]
body = (pos > sep[:, None]) & (x != PAD)  # 正文的行 [B, T]
in_condition = pos <= sep[:, None]  # 条件区的列 [B, T]
is_mark = torch.isin(x, torch.tensor(tok.encode(LINE_ENDS)))  # 句末标点的列 [B, T]
causal_all = torch.ones(L, L, dtype=torch.bool).tril()
uniform_all = (causal_all / torch.arange(1, L + 1)[:, None]).expand(B, 1, L, L)


def averages(w):
    """w: [B, H', T, T] → 每个头在正文位置上的 5 个平均值。"""
    prev = w.diagonal(offset=-1, dim1=-2, dim2=-1)  # [B, H', T-1]：第 t 行给第 t-1 列
    parts = [
        prev,
        (w * in_condition[:, None, None]).sum(-1)[..., 1:],
        w.gather(-1, sep[:, None, None, None].expand(-1, w.shape[1], L, 1))[..., 0][..., 1:],
        (w * is_mark[:, None, None]).sum(-1)[..., 1:],
        w.max(-1).values[..., 1:],
    ]
    rows = body[:, None, 1:].expand(-1, w.shape[1], -1)
    return [[part[:, i][rows[:, i]].mean().item() for part in parts] for i in range(w.shape[1])]


columns = ["给上一个字", "给条件区", "给 <sep>", "给句末标点", "一行里最大的权重"]
rows = averages(w_all)
table(
    ["头"] + columns,
    [[f"头 {i}"] + r for i, r in enumerate(rows)] + [["平均分配"] + averages(uniform_all)[0]],
    title=f"训练好的第 0 层：{int(body.sum())} 个正文位置上的平均权重",
)
# 哪个头看上一个字是训练出来的，重训后可能换一个头，所以取表里“给上一个字”最大的那个头
prev_head = max(range(heads), key=lambda i: rows[i][0])
prev_top = (w_all.argmax(-1)[:, prev_head] == pos - 1)[body].float().mean()
show(f"头 {prev_head} 把最大权重给上一个字的位置占比", prev_top)

# 4. 与 F.scaled_dot_product_attention 的快速写法等价（用训练好的第 0 层的参数）
config = trained.config
slow = CausalAttention(ModelConfig(**{**config.to_dict(), "fast_attention": False})).eval()
fast = CausalAttention(ModelConfig(**{**config.to_dict(), "fast_attention": True})).eval()
slow.load_state_dict(first.attention.state_dict())
fast.load_state_dict(first.attention.state_dict())
lines = [split_lines(p["text"])[0] for p in val[:8] if p["form"] == "七言绝句"]
batch = torch.tensor([tok.encode(l) for l in lines])  # [B, 7]
with torch.no_grad():
    x = first.norm1(trained.characters(batch) + trained.positions(torch.arange(batch.shape[1])))
    a, b = slow(x), fast(x)
show("逐步写法与快速写法：输入形状、输出形状", [list(x.shape), list(a.shape)])
show("两种写法 allclose", torch.allclose(a, b, atol=1e-6))
diff = (a - b).abs().max().item()
show("两种写法最多相差（舍入差：换一种 CPU、换线程数就变）", measured(diff), digits=9)
show("  不到 1e-6", diff < 1e-6)

# 5. 头数不改变参数个数，只改变每个头的宽度
rows = []
for n_heads in (1, 2, 4, 8):
    m = CausalAttention(ModelConfig(vocab_size=len(tok), n_heads=n_heads))
    rows.append(
        [
            n_heads,
            C // n_heads,
            sum(p.numel() for p in m.parameters()),
            f"√{C // n_heads} = {(C // n_heads) ** 0.5:.2f}",
        ]
    )
table(["头数 H", "每头宽 C/H", "注意力参数个数", "分数除以"], rows, title=f"宽度 C={C} 时换头数")
