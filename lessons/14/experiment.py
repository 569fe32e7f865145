"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/14/experiment.py。"""

import math

import torch
from torch.nn import functional as F

from poetry_gpt.data import BOS, EOS, FIVE, SEP, default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.model import IGNORE_INDEX, ModelConfig, PoetryGPT

setup_experiment()

tok = default_tokenizer()
config = ModelConfig(vocab_size=len(tok))
model = PoetryGPT(config).eval()
V, C = config.vocab_size, config.width
show(
    "默认配置",
    f"vocab_size={V}, context_length={config.context_length}, width={C}, "
    f"n_layers={config.n_layers}, n_heads={config.n_heads}",
)

# 1. 整个模型：编号 [B, T] → logits [B, T, V]
poems = load_poems("val")[:32]
x, y, mask = make_batch([encode_sample(p, tok) for p in poems])  # 各 [32, T]
with torch.no_grad():
    logits, _ = model(x)
show("输入编号 x 的形状 [B, T]", list(x.shape))
show("logits 的形状 [B, T, V]", list(logits.shape))
show("第 1 首诗", poems[0]["text"])
show("模型读到的第 1 条样本", tok.decode(x[0]))

# 2. 输入输出共享表（weight tying）：输出层与 characters 是同一张表
show("head.weight 就是 characters.weight", model.head.weight is model.characters.weight)
show("两者在内存里是同一块", model.head.weight.data_ptr() == model.characters.weight.data_ptr())
hidden = torch.randn(4, 10, C)  # 随便一批最后的表示
target = torch.randint(0, V, (4, 10))
model.zero_grad()
F.cross_entropy(model.head(hidden).flatten(0, 1), target.flatten()).backward()  # 只经过输出层
grad = model.characters.weight.grad
show("只对输出层反向传播：characters 梯度非零的行数", f"{int((grad.abs().sum(1) > 0).sum())} / {V}")
model.zero_grad()
model.characters(target).sum().backward()  # 只经过查表
rows = int((model.characters.weight.grad.abs().sum(1) > 0).sum())
show("只对查表反向传播：梯度非零的行数（第 08 课）", f"{rows}（= 这 40 个目标里不同的字数 {target.unique().numel()}）")
model.zero_grad()

# 3. 参数都在哪（共用的表只算一次）
counts = model.parameter_counts()
total = model.num_parameters()
formulas = {
    "characters": "V·C",
    "positions": "L·C",
    "attention": "层数 × (4C² + 4C)",
    "mlp": "层数 × (8C² + 5C)",
    "norms": "(2·层数 + 1) × 2C",
}
table(
    ["部分", "参数个数", "公式", "占比"],
    [[name, n, formulas[name], f"{n / total:.1%}"] for name, n in counts.items()]
    + [["head（与 characters 共用）", 0, "不另算", "0.0%"], ["合计", total, "", "100.0%"]],
    title="默认 PoetryGPT 的参数",
)
show("各部分之和等于 num_parameters()", sum(counts.values()) == total)
untied = sum(p.numel() for p in model.parameters()) + model.head.weight.numel()
show(
    "如果输出层另有一张表，参数会变成",
    f"{untied}（多 {model.head.weight.numel()} 个，{model.head.weight.numel() / total:.0%}）",
)

# 4. 未训练的模型在真诗上的损失，与“平均猜”相比
with torch.no_grad():
    _, loss = model(x, y.masked_fill(~mask, IGNORE_INDEX))  # 只在正文与 <eos> 上算
    probs = F.softmax(logits[mask], dim=-1)  # [N, V]
show("计入损失的位置数", int(mask.sum()))
show("未训练模型的交叉熵（奈特/字）", loss)
show("ln(V)：每个字都猜 1/V 时的交叉熵", math.log(V))
show("未训练模型给正确字的平均概率 × V", (probs.gather(1, y[mask][:, None]).mean() * V).item())
show("logits 的标准差", logits[mask].std())

# 5. 让未训练的模型写一首五言，关键词“月”
ids = [BOS, FIVE] + tok.encode("月") + [SEP]
with torch.no_grad():
    for _ in range(24):  # 五言绝句正文 24 个位置（含标点）
        next_logits, _ = model(torch.tensor([ids]))
        next_id = torch.multinomial(F.softmax(next_logits[0, -1], dim=-1), 1).item()
        ids.append(next_id)
        if next_id == EOS:
            break
poem = tok.decode(ids[4:], skip_special=True)
show("未训练模型写的“诗”", poem)
show("其中的标点个数（一首五言绝句应有 4 个）", sum(ch in "，。？！" for ch in poem))
top_p, top_i = F.softmax(next_logits[0, -1], -1).topk(5)
show("最后一步概率最高的 5 个字", [f"{tok.tokens[i]} {p:.6f}" for p, i in zip(top_p.tolist(), top_i.tolist())])
show("对照：1/V", 1 / V, digits=6)
