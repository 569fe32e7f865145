"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/10/experiment.py。"""

import math

import torch
from torch.nn import functional as F

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import SEP, default_tokenizer, encode_sample, load_poems, split_lines
from poetry_gpt.labs import heatmap, setup_experiment, show, table
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.probes import attention_weights, previous_position_weight

setup_experiment()

tok = default_tokenizer()
model = PoetryGPT(ModelConfig(vocab_size=len(tok))).eval()
block = model.blocks[0]
C = model.config.width


@torch.no_grad()
def one_head(line):
    """把第 0 层的 q、k、v 当成一个宽 C 的头，一步步算注意力；返回每一步的张量。"""
    ids = torch.tensor([tok.encode(line)])  # [1, T]
    T = ids.shape[1]
    x = model.characters(ids) + model.positions(torch.arange(T))  # [1, T, C]
    h = block.norm1(x)  # Block 先做层归一化再进注意力
    q, k, v = block.attention.qkv(h).split(C, dim=-1)  # 各 [1, T, C]
    scores = q @ k.transpose(-2, -1)  # [1, T, C] @ [1, C, T] → [1, T, T]
    scaled = scores / math.sqrt(C)  # 缩放：点积的尺度不随宽度变大
    causal = torch.ones(T, T, dtype=torch.bool).tril()  # causal[t, s] 为真：t 可以看 s（s ≤ t）
    masked = scaled.masked_fill(~causal, float("-inf"))
    weights = F.softmax(masked, dim=-1)  # 每行在“自己和前文”上分配总量 1
    out = weights @ v  # [1, T, T] @ [1, T, C] → [1, T, C]
    return dict(ids=ids, x=x, q=q, k=k, v=v, scores=scores, scaled=scaled, weights=weights, out=out)


poem = next(p for p in load_poems("val") if p["form"] == "七言绝句")
line = split_lines(poem["text"])[0]
show("验证集里的一句", f"{line}（{poem['author']}《{poem['title']}》）")
s = one_head(line)
T = len(line)

# 1. 每一步的形状
table(
    ["量", "形状", "说明"],
    [
        ["ids", list(s["ids"].shape), "[B, T] 编号"],
        ["x", list(s["x"].shape), "[B, T, C] 字向量 + 位置向量"],
        ["q、k、v", list(s["q"].shape), "[B, T, C] 查询、键、值"],
        ["scores", list(s["scores"].shape), "[B, T, T] 每对位置一个注意力分数"],
        ["weights", list(s["weights"].shape), "[B, T, T] 遮挡 + softmax 之后"],
        ["out", list(s["out"].shape), "[B, T, C] 按权重汇总的值"],
    ],
    title="单头注意力的形状",
)

# 2. 缩放：不除以 √C 时注意力分数有多大
show("注意力分数的标准差（未缩放）", s["scores"].std())
show("注意力分数的标准差（除以 √C 后）", s["scaled"].std())
a, b = torch.randn(T, C), torch.randn(T, C)  # 每个数方差都是 1 的 q、k
causal = torch.ones(T, T, dtype=torch.bool).tril()
for name, sc in (("不缩放", a @ b.T), ("除以 √C", a @ b.T / math.sqrt(C))):
    wt = F.softmax(sc.masked_fill(~causal, float("-inf")), dim=-1)
    show(f"方差 1 的 q、k，{name}：注意力分数的标准差、最后一行最大权重", [sc.std().item(), wt[-1].max().item()])

# 3. 权重矩阵：后文为 0，每行和为 1
w = s["weights"][0]
show("上三角（后文）的最大权重", w.triu(1).max())
show("每行权重之和", w.sum(-1))
show("第 2 行（位置 2，只看位置 0–2）", w[2])
heatmap(w, list(line), list(line), title="行：正在算的字；列：被看的字")
uniform = causal / torch.arange(1, T + 1)[:, None]  # 第 t 行前 t+1 格各 1/(t+1)
show("未训练的模型：与“平均分配”最多差", (w - uniform).abs().max())

# 4. 因果：改掉第 5 个字，前 4 个位置的输出一点不变
changed = line[:4] + ("月" if line[4] != "月" else "风") + line[5:]
out, out2 = s["out"][0], one_head(changed)["out"][0]
show("改成", changed)
table(
    ["位置", "字", "输出是否完全相同", "最多变了多少"],
    [
        [
            t,
            line[t] if line[t] == changed[t] else f"{line[t]}→{changed[t]}",
            torch.equal(out[t], out2[t]),
            (out[t] - out2[t]).abs().max().item(),
        ]
        for t in range(T)
    ],
    title="改第 5 个字，各位置的输出",
)

# 5. 模型里的 CausalAttention：同样的算法对 H 个宽 C/H 的头各做一次
att = block.attention
with torch.no_grad():
    h = block.norm1(s["x"])
    qh, kh, vh = (att.split_heads(t) for t in att.qkv(h).split(C, dim=-1))  # 各 [1, H, T, C/H]
    heads = att.weights(qh, kh)  # [1, H, T, T]
    by_hand = att.proj(att.merge_heads(heads @ vh))
    show("CausalAttention.weights 的形状 [B, H, T, T]", list(heads.shape))
    show(
        "各头的上三角最大值、每行和的范围",
        [heads.triu(1).max().item(), heads.sum(-1).min().item(), heads.sum(-1).max().item()],
    )
    show("逐步写法与 CausalAttention 的输出相同", torch.allclose(by_hand, att(h), atol=1e-6))

# 6. 对照：训练好的模型（data/model.pt）第 0 层里“看上一个字”的那个头看同一句
trained, _ = load_model()
sample = encode_sample(poem, tok)  # 训练时的样子：条件区 <bos> <7> 关键词 <sep>，再接正文
start = sample.index(SEP) + 1
ids = torch.tensor([sample[: start + T]])  # [1, 12]：条件区 + 这一句
labels = [tok.tokens[i] for i in ids[0].tolist()]
# 和上面 one_head 同样的几步（先 norm1，再 q、k、遮挡、softmax），只是按 H 个头算；第 11 课与课程网站的图也用它
all_w = attention_weights(trained, ids, layer=0)[0, :, start:]  # [H, 7, 12]：各头，正文这 7 行
# 训练不规定哪个头做什么，重训一次这个角色就可能换到别的头上，所以不写死，而是算出来：
# 正文第 t 行给上一个位置（第 start+t-1 列）的权重，在 7 行上取平均，最大的那个头
prev = previous_position_weight(all_w, start)  # [H]
head = prev.argmax().item()
trained_w = all_w[head]  # [7, 12]
show("训练好的模型看到的输入", " ".join(labels))
show("各头给上一个位置的平均权重（正文 7 行）", prev)
show("最看上一个字的头", f"头 {head}")
heatmap(trained_w, list(line), labels, title=f"训练好的层 0、头 {head}（行：正文的字；列：它能看到的全部位置）")
visible = torch.arange(start + 1, start + T + 1)  # 第 t 个字能看到的位置数
show("训练好的头：每个字给上一个位置的权重", [trained_w[t, start + t - 1] for t in range(T)])
show("训练好的头：每行最大的权重", trained_w.max(-1).values)
show("平均分配时每行的权重（1/能看到的位置数）", 1 / visible)
