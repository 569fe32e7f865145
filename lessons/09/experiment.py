"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/09/experiment.py。"""

import torch
from torch.nn import functional as F

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import default_tokenizer
from poetry_gpt.labs import heatmap, setup_experiment, show, table
from poetry_gpt.model import ModelConfig, PoetryGPT, sinusoidal_positions

setup_experiment()

tok = default_tokenizer()
model = PoetryGPT(ModelConfig(vocab_size=len(tok)))

# 1. 同样三个字，换一换前两个的顺序
a = torch.tensor([tok.encode("春风月")])  # [B=1, T=3]
b = torch.tensor([tok.encode("风春月")])
pos = torch.arange(3)
with torch.no_grad():
    ha = model.characters(a) + model.positions(pos)  # [1,3,C] + [3,C] → [1,3,C]
    hb = model.characters(b) + model.positions(pos)
show("字的编号 春风月", a[0].tolist())
show("字的编号 风春月", b[0].tolist())
show("位置编号", pos.tolist())
show("相加后的形状", list(ha.shape))
for i in range(3):
    show(f"位置 {i} 是否相同", torch.equal(ha[0, i], hb[0, i]))
show("原序列位置 0 的前 4 个数", ha[0, 0, :4])
show("换序后位置 0 的前 4 个数", hb[0, 0, :4])

# 1b. 手算的小例子（宽度 2，位置表 3 行），和 README、练习底部的检查同一组数
small = torch.tensor([[0.1, 0.2], [0.0, 0.3], [-0.2, 0.1]])
spring = torch.tensor([0.5, -1.0])
table(
    ["“春”在", "字向量", "位置表的行", "相加"],
    [[f"位置 {p}", spring.tolist(), small[p].tolist(), (spring + small[p]).tolist()] for p in range(3)],
    title="手算的小例子：同一个字，位置不同，向量不同",
    digits=1,
)

# 2. 只把字向量平均：顺序信息就没了
show("字向量平均是否相同", torch.allclose(model.characters(a).mean(1), model.characters(b).mean(1)))

# 3. 位置表有多大，超出会怎样
L, C = model.config.context_length, model.config.width
show("位置表形状 [L, C]", list(model.positions.weight.shape))
show("位置表参数个数 L×C", model.positions.weight.numel())
try:
    model(torch.zeros(1, L + 1, dtype=torch.long))
except ValueError as e:
    show("输入 65 个位置", str(e))

# 4. 与正弦位置表比较
sin = sinusoidal_positions(L, C)
learned = model.positions.weight.detach()
neighbour = lambda t: F.cosine_similarity(t[:-1], t[1:], dim=-1).mean().item()
table(
    ["位置表", "参数个数", "相邻位置余弦相似度（平均）"],
    [["可学习（未训练）", learned.numel(), neighbour(learned)], ["正弦", 0, neighbour(sin)]],
    title="两种位置表",
)
for width in (64, 32):
    periods = 2 * torch.pi * torch.pow(10000.0, torch.arange(0, width, 2) / width)
    show(f"C={width} 的波长范围（位置数）", [periods.min().item(), periods.max().item()], digits=1)
try:
    sin[L]
except IndexError:
    show("正弦表取位置 64", "越界：这张表只预先算了 64 行（公式本身对任何位置都算得出）")

# 5. 训练让位置表学出了什么：位置两两的余弦相似度（热力图画位置 0–11，相邻位置的平均取全部 64 行）
trained, _ = load_model()
rows = 12
for name, weight in (("未训练", learned), ("训练好的", trained.positions.weight.detach())):
    unit = F.normalize(weight[:rows], dim=-1)
    heatmap(unit @ unit.T, range(rows), range(rows), title=f"{name}位置表：位置两两的余弦相似度（位置 0–11）")
    show(f"{name}位置表相邻位置余弦相似度（全部 64 行平均）", neighbour(weight))
