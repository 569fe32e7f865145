"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/11/experiment.py。"""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import torch
from poetry_gpt.model import CausalAttention, ModelConfig, PoetryGPT
from poetry_gpt.data import default_tokenizer, load_poems, split_lines
from poetry_gpt.labs import heatmap, show, table
torch.set_num_threads(2)
torch.manual_seed(26)

tok = default_tokenizer()
model = PoetryGPT(ModelConfig(vocab_size=len(tok))).eval()
block = model.blocks[0]
att = block.attention
C, H, D = model.config.width, att.n_heads, att.head_width

# 第 10 课用过的那一句：验证集里第一首七言绝句的第一句
poem = next(p for p in load_poems("val") if p["form"] == "七言绝句")
line = split_lines(poem["text"])[0]
T = len(line)
show("验证集里的一句", f"{line}（{poem['author']}《{poem['title']}》）")
ids = torch.tensor([tok.encode(line)])                                  # [1, T]
with torch.no_grad():
    h = block.norm1(model.characters(ids) + model.positions(torch.arange(T)))  # [1, T, C]

# 1. 拆头与合头：只是换个看法，数一个没变
with torch.no_grad():
    q, k, v = att.qkv(h).split(C, dim=-1)                              # 各 [1, T, C]
    qh, kh, vh = att.split_heads(q), att.split_heads(k), att.split_heads(v)  # 各 [1, H, T, C/H]
    w = att.weights(qh, kh)                                            # [1, H, T, T]
    heads_out = w @ vh                                                 # [1, H, T, C/H]
    merged = att.merge_heads(heads_out)                                # [1, T, C]
    out = att.proj(merged)                                             # [1, T, C]
table(["量", "形状", "说明"],
      [["q", list(q.shape), "[B, T, C]：一个位置一条宽 C 的查询"],
       ["split_heads(q)", list(qh.shape), f"[B, H, T, C/H]：切成 H={H} 个头，每头宽 {D}"],
       ["weights", list(w.shape), "[B, H, T, T]：每个头一张注意力权重表"],
       ["weights @ v", list(heads_out.shape), "[B, H, T, C/H]：每个头各自汇总"],
       ["merge_heads", list(merged.shape), "[B, T, C]：各头的结果首尾相接"],
       ["proj", list(out.shape), "[B, T, C]：输出投影把各头的结果混在一起"]], title="多头注意力的形状")
show("merge_heads(split_heads(q)) 与 q 完全相同", torch.equal(att.merge_heads(qh), q))
show("第 2 个头就是 q 的第 2 段宽度（第 64–95 列）", torch.equal(qh[0, 2], q[0, :, 2 * D:3 * D]))

# 每个头只读自己那一段：把第 2 个头的 v 清零，合并后只有第 64–95 列变化
v_zeroed = v.clone()
v_zeroed[..., 2 * D:3 * D] = 0
changed = (att.merge_heads(w @ att.split_heads(v_zeroed)) != merged)[0].any(0).nonzero().flatten()
show("清零第 2 个头的 v 后，合并结果里变了的列", f"第 {changed.min().item()}–{changed.max().item()} 列，共 {changed.numel()} 列")

# 2. 未训练的模型：四个头几乎一样，都在平均分配
causal = torch.ones(T, T, dtype=torch.bool).tril()
uniform = causal / torch.arange(1, T + 1)[:, None]
show("未训练：各头与“平均分配”最多差", [(w[0, i] - uniform).abs().max().item() for i in range(H)])

# 3. 让 q、k 的权重变大（训练会做的事之一），各头立刻各有各的看法
big = CausalAttention(model.config).eval()
big.load_state_dict(att.state_dict())
with torch.no_grad():
    big.qkv.weight[:2 * C] *= 6  # 只放大算 q、k 的那 2C 行；v 不动
    qb, kb, _ = big.qkv(h).split(C, dim=-1)
    wb = big.weights(big.split_heads(qb), big.split_heads(kb))[0]  # [H, T, T]
for i in range(H):
    heatmap(wb[i], list(line), list(line), title=f"第 {i} 个头（行：正在算的字；列：被看的字）")
table(["位置", "字"] + [f"头 {i} 最看重" for i in range(H)],
      [[t, line[t]] + [f"{line[j]} {wb[i, t, j].item():.2f}" for i in range(H) for j in [wb[i, t].argmax().item()]]
       for t in range(T)], title="同一个字，四个头各把最大的权重给了谁")

# 4. 与 F.scaled_dot_product_attention 的快速写法等价
config = ModelConfig(vocab_size=len(tok))
slow = CausalAttention(ModelConfig(**{**config.to_dict(), "fast_attention": False})).eval()
fast = CausalAttention(ModelConfig(**{**config.to_dict(), "fast_attention": True})).eval()
slow.load_state_dict(big.state_dict())
fast.load_state_dict(big.state_dict())
lines = [split_lines(p["text"])[0] for p in load_poems("val")[:8] if p["form"] == "七言绝句"]
batch = torch.tensor([tok.encode(l) for l in lines])          # [B, 7]
with torch.no_grad():
    x = block.norm1(model.characters(batch) + model.positions(torch.arange(batch.shape[1])))
    a, b = slow(x), fast(x)
show("逐步写法与快速写法：输入形状、输出形状", [list(x.shape), list(a.shape)])
show("两种写法 allclose", torch.allclose(a, b, atol=1e-6))
show("两种写法最多相差", (a - b).abs().max(), digits=9)

# 5. 头数不改变参数个数，只改变每个头的宽度
rows = []
for n_heads in (1, 2, 4, 8):
    m = CausalAttention(ModelConfig(vocab_size=len(tok), n_heads=n_heads))
    rows.append([n_heads, C // n_heads, sum(p.numel() for p in m.parameters()), f"√{C // n_heads} = {(C // n_heads) ** 0.5:.2f}"])
table(["头数 H", "每头宽 C/H", "注意力参数个数", "分数除以"], rows, title=f"宽度 C={C} 时换头数")
