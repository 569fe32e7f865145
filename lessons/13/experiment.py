"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/13/experiment.py。"""

import torch
from torch import nn
from torch.nn import functional as F

from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.labs import measured, setup_experiment, show, table
from poetry_gpt.model import ModelConfig, PoetryGPT

setup_experiment()

tok = default_tokenizer()
model = PoetryGPT(ModelConfig(vocab_size=len(tok))).eval().requires_grad_(False)  # 本课只要输入的梯度，不要参数的
C = model.config.width

# 8 首验证集的诗，排成一批，查表得到进入第一个 Block 的向量
poems = load_poems("val")[:8]
ids, targets, mask = make_batch([encode_sample(p, tok) for p in poems])  # [8, T]
T = ids.shape[1]
with torch.no_grad():
    x = model.characters(ids) + model.positions(torch.arange(T))  # [8, T, C]
show("一批真诗的输入形状 [B, T, C]", list(x.shape))

# 1. LayerNorm 写出来：每个位置在最后一维上减均值、除以标准差，再乘 weight、加 bias
norm = nn.LayerNorm(C)
with torch.no_grad():
    norm.weight.copy_(1 + 0.5 * torch.randn(C))  # 换成非平凡的 weight、bias，比较才有意义
    norm.bias.copy_(0.1 * torch.randn(C))
    mean = x.mean(-1, keepdim=True)  # [8, T, 1]
    var = x.var(-1, keepdim=True, unbiased=False)  # 除以 C，不是 C-1
    by_hand = (x - mean) / torch.sqrt(var + norm.eps) * norm.weight + norm.bias
    theirs = norm(x)
    unbiased = (x - mean) / torch.sqrt(x.var(-1, keepdim=True) + norm.eps) * norm.weight + norm.bias
show("手写 LayerNorm 与 nn.LayerNorm allclose", torch.allclose(by_hand, theirs, atol=1e-5))
diff = (by_hand - theirs).abs().max().item()
show("两者最多相差（舍入差：换一种 CPU、换线程数就变）", measured(diff), digits=8)
show("  不到 1e-5", diff < 1e-5)
show("若误用无偏方差（除以 C-1），最多相差", (unbiased - theirs).abs().max(), digits=5)
row = x[0, 5]
plain = F.layer_norm(row, (C,))  # weight=1、bias=0 时的样子
table(
    ["", "均值", "标准差", "最大绝对值"],
    [
        ["归一化前（第 1 首诗第 6 个位置）", row.mean().item(), row.std(unbiased=False).item(), row.abs().max().item()],
        [
            "归一化后（weight=1, bias=0）",
            plain.mean().item(),
            plain.std(unbiased=False).item(),
            plain.abs().max().item(),
        ],
    ],
    title="一个位置的向量",
)

# 2. 先归一化的 Block：两次“读一份归一化的副本，算出修改，加回残差流”
block = model.blocks[0]
with torch.no_grad():
    attn_update = block.attention(block.norm1(x))
    mid = x + attn_update
    mlp_update = block.mlp(block.norm2(mid))
    out = mid + mlp_update
    show("照 Block 的两行写出来与 block(x) 相同", torch.allclose(out, block(x)))
    show(
        "注意力、MLP 各自加上的修改 / 残差流的大小",
        [(attn_update.norm() / x.norm()).item(), (mlp_update.norm() / mid.norm()).item()],
    )


# 3. 四层叠起来：有没有残差、有没有 LayerNorm，残差流上的数值尺度怎样变
def run(residual: bool, layer_norm: bool):
    """让 x 穿过模型的 4 个 Block（可去掉残差或 LayerNorm）。

    Returns:
        (每层后残差流的标准差, 最后一层（层 3）注意力看到的输入的标准差, 输出与输入的余弦相似度, 输入收到的梯度范数)
    """
    h = x.clone().requires_grad_()
    z, stds = h, [h.std().item()]
    for b in model.blocks:
        n1, n2 = (b.norm1, b.norm2) if layer_norm else (nn.Identity(), nn.Identity())
        seen = n1(z)
        z = z + b.attention(seen) if residual else b.attention(seen)
        z = z + b.mlp(n2(z)) if residual else b.mlp(n2(z))
        stds.append(z.std().item())
    F.cross_entropy(model.head(model.norm(z))[mask], targets[mask]).backward()  # 只在正文上算损失
    keep = F.cosine_similarity(z.detach(), h.detach(), dim=-1).mean().item()
    return stds, seen.std().item(), keep, h.grad.norm().item()


names = {(True, True): "残差 + LN", (True, False): "只有残差", (False, True): "只有 LN", (False, False): "都没有"}
scale_rows, other_rows = [], []
for (residual, layer_norm), name in names.items():
    stds, seen, keep, grad = run(residual, layer_norm)
    scale_rows.append([name] + [f"{s:.3g}" for s in stds])
    other_rows.append([name, f"{seen:.3g}", f"{keep:.3f}", f"{grad:.3g}"])
table(
    ["写法", "输入", "1 层后", "2 层后", "3 层后", "4 层后"],
    scale_rows,
    title="残差流的标准差（“残差 + LN”是模型的真实写法）",
)
table(
    ["写法", "层 3 注意力的输入 std", "输出与输入的余弦", "字向量的梯度范数"],
    other_rows,
    title="每一层看到什么、留下什么、梯度能否传回",
)
