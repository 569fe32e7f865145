"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/12/experiment.py。"""

import math

import torch
from torch.nn import functional as F

from poetry_gpt.data import default_tokenizer, load_poems, split_lines
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.model import ModelConfig, PoetryGPT

setup_experiment()

tok = default_tokenizer()
model = PoetryGPT(ModelConfig(vocab_size=len(tok))).eval()
block = model.blocks[0]
mlp = block.mlp
C = model.config.width

poem = next(p for p in load_poems("val") if p["form"] == "五言绝句")
line = split_lines(poem["text"])[0]
T = len(line)
show("验证集里的一句", f"{line}（{poem['author']}《{poem['title']}》）")
ids = torch.tensor([tok.encode(line)])
with torch.no_grad():
    x = block.norm2(model.characters(ids) + model.positions(torch.arange(T)))  # [1, T, C]，MLP 之前也先归一化

# 1. 一步步走一遍 MLP：C → 4C → GELU → C
with torch.no_grad():
    up = mlp.up(x)  # [1, T, 4C]
    act = mlp.act(up)  # [1, T, 4C]
    down = mlp.down(act)  # [1, T, C]
table(
    ["步骤", "形状", "说明"],
    [
        ["输入 x", list(x.shape), "[B, T, C]"],
        ["up(x)", list(up.shape), "[B, T, 4C]：放宽到 4 倍"],
        ["GELU", list(act.shape), "[B, T, 4C]：逐个数做非线性"],
        ["down(...)", list(down.shape), "[B, T, C]：收回原宽度"],
    ],
    title="MLP 的形状",
)
show("与 mlp(x) 相同", torch.allclose(down, mlp(x)))
show("GELU 之后为负的数所占比例", (act < 0).float().mean())
show("GELU 之后最小的数", act.min())

# 2. 逐位置：每个字单独过 MLP，结果一样；改掉别的字，这个字的输出不变
with torch.no_grad():
    one_by_one = torch.stack([mlp(x[:, t]) for t in range(T)], dim=1)  # 每次 [1, C]
    show("整句一起算与逐字单独算 allclose", torch.allclose(mlp(x), one_by_one, atol=1e-6))
    order = torch.randperm(T)
    show("打乱字序后，输出只是跟着换了位置", torch.allclose(mlp(x[:, order]), mlp(x)[:, order], atol=1e-6))

# 3. GELU 的两种写法：精确（erf）与 tanh 近似
grid = torch.linspace(-6, 6, 12001, dtype=torch.float64)  # 双精度：看清两个公式本身的差
exact = 0.5 * grid * (1 + torch.erf(grid / math.sqrt(2)))
tanh_form = 0.5 * grid * (1 + torch.tanh(math.sqrt(2 / math.pi) * (grid + 0.044715 * grid**3)))
show("手写精确 GELU 与 F.gelu 最多相差", (exact - F.gelu(grid)).abs().max(), digits=9)
show(
    "手写 tanh 近似与 F.gelu(approximate='tanh') 最多相差",
    (tanh_form - F.gelu(grid, approximate="tanh")).abs().max(),
    digits=9,
)
gap = (exact - tanh_form).abs()
show("精确与 tanh 近似在 [-6, 6] 上最多相差", gap.max(), digits=6)
show("相差最大处的 x", grid[gap.argmax()], digits=2)
points = torch.tensor([-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0])
table(
    ["x", "ReLU", "GELU（精确）", "GELU（tanh）", "Φ(x)：x 被保留的比例"],
    [
        [
            p.item(),
            F.relu(p).item(),
            F.gelu(p).item(),
            F.gelu(p, approximate="tanh").item(),
            0.5 * (1 + math.erf(p.item() / math.sqrt(2))),
        ]
        for p in points
    ],
    title="几种激活函数",
)

# 4. 参数都在哪：每个 Block 里 MLP 约占 2/3
count = lambda m: sum(p.numel() for p in m.parameters())
parts = [
    ["注意力 attention（qkv + proj）", count(block.attention), "4C² + 4C"],
    ["前馈网络 mlp（up + down）", count(mlp), "8C² + 5C"],
    ["两个 LayerNorm", count(block.norm1) + count(block.norm2), "4C"],
]
total = count(block)
table(
    ["部分", "参数个数", "公式（C=128）", "占一个 Block"],
    [row + [f"{row[1] / total:.1%}"] for row in parts] + [["合计", total, "12C² + 13C", "100.0%"]],
    title="一个 Block 的参数",
)
show(f"{model.config.n_layers} 层 MLP 合计 / 整个模型", [count(mlp) * model.config.n_layers, model.num_parameters()])
