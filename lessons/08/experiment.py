"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/08/experiment.py。"""

import math

import torch
from torch.nn import functional as F

from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, loss_mask_for
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.model import IGNORE_INDEX, ModelConfig, PoetryGPT

setup_experiment()

tok = default_tokenizer()
model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
weight = model.characters.weight  # [V, C]，就是字向量表本身
V, C = weight.shape

# 1. 查表：编号 → 那一行
ids = torch.tensor(tok.encode("春风月"))  # [T=3]
vectors = model.characters(ids)  # [3, C]
show("字向量表形状 [V, C]", [V, C])
show("春 风 月 的编号", ids.tolist())
show("查出来的形状 [T, C]", list(vectors.shape))
show("“春”的前 4 个数", vectors[0, :4])
show("表里第 18 行的前 4 个数", weight[18, :4])

# 2. 同一件事换个写法：one-hot 向量乘整张表
one_hot = F.one_hot(ids, V)  # [3, V] 整数：每行只有一个 1
product = one_hot.float() @ weight  # [3, V] @ [V, C] → [3, C]
show("one-hot 形状 [T, V]", list(one_hot.shape))
show("每行有几个 1", one_hot.sum(1).tolist())
show("1 所在的列", one_hot.argmax(1).tolist())
show("one-hot 乘表与查表相同（allclose）", torch.allclose(product, vectors))
show("最大相差", (product - vectors).abs().max())
table(
    ["做法", "乘加次数", "经手的数"],
    [["one-hot 乘整张表", 3 * V * C, 3 * V + V * C], ["直接查表", 0, 3 * C]],
    title="同样查 3 个字，工作量差多少",
)

# 3. 反向传播只碰被查到的行
ids = torch.tensor(tok.encode("春风春月"))  # “春”查了两次
g = torch.randn(len(ids), C)  # 假装下游传回每个位置的梯度 [T, C]
model.zero_grad()
(model.characters(ids) * g).sum().backward()  # 这个损失对查出向量的梯度正好是 g
touched = weight.grad.abs().sum(1).nonzero().flatten()
show("查了几次", len(ids))
show("不同的字几个", len(set(ids.tolist())))
show("梯度非零的行数", len(touched))
show("这些行对应的字（按编号排）", tok.decode(touched.tolist()))
show("“春”那一行的梯度 = 两次的梯度相加", torch.allclose(weight.grad[ids[0]], g[0] + g[2]))

poem = load_poems("val")[0]
line_ids = torch.tensor(tok.encode(poem["text"]))
model.zero_grad()
(model.characters(line_ids) * torch.randn(len(line_ids), C)).sum().backward()
rows = int((weight.grad.abs().sum(1) > 0).sum())
show("一首真诗", f"{poem['author']}《{poem['title']}》{poem['text']}")
show("查了几次（含标点）", len(line_ids))
show("不同的字几个", len(set(line_ids.tolist())))
show("梯度非零的行数", rows)
show("占全表的比例", rows / V)

# 输入输出共享表（weight tying）：输出层就是 characters，走完整个模型，每一行都会收到梯度
sample = encode_sample(poem, tok)
x, y = torch.tensor([sample[:-1]]), torch.tensor([sample[1:]])
mask = torch.tensor([loss_mask_for(sample)])
model.zero_grad()
_, loss = model(x, y.masked_fill(~mask, IGNORE_INDEX))  # 条件区不计分
loss.backward()
show("走完整个模型后梯度非零的行数", int((weight.grad.abs().sum(1) > 0).sum()))

# 4. 初始化的尺度
show("整张表的标准差", weight.std())
show("“春”这一行的标准差", weight[tok.stoi["春"]].std())
show("“春”这一行的长度 ‖w‖", weight[tok.stoi["春"]].norm())
show("0.02 × √C", 0.02 * math.sqrt(C))
rows_out = []
with torch.no_grad():
    for std in (0.02, 0.2, 1.0):
        torch.nn.init.normal_(weight, std=std)
        logits, _ = model(x)
        loss = F.cross_entropy(logits[0][mask[0]], y[0][mask[0]])
        # 共享表时，本字的向量和它自己点积最大：看模型有多相信“下一个字还是本字”
        p_self = logits.softmax(-1).gather(-1, x[..., None]).mean()
        rows_out.append([std, logits.std().item(), p_self.item(), loss.item()])
table(
    ["初始化标准差", "logits 标准差", "P(下一字=本字)", "起步损失"], rows_out, title="表的尺度与起步时的损失（奈特/字）"
)
show("均匀猜测的损失 ln V", math.log(V))
