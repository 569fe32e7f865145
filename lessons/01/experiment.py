"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/01/experiment.py。"""

import sys

import torch

from poetry_gpt.checkpoint import CheckpointError, load_model
from poetry_gpt.common import ROOT, read_toml
from poetry_gpt.data import BOS, SEP, default_tokenizer, form_of, split_lines
from poetry_gpt.generate import write_one
from poetry_gpt.labs import setup_experiment, show, table

setup_experiment()

tok = default_tokenizer()
try:
    model, _ = load_model()  # data/model.pt：随课程发布的模型，只读一次
except CheckpointError as e:
    sys.exit(f"读不了随课程发布的模型：{e}")
cfg = model.config
show(
    "模型",
    f"{cfg.n_layers} 层 Block，宽度 C = {cfg.width}，汉字表 V = {cfg.vocab_size}，参数 {model.num_parameters()} 个",
)

# 0. 先写一首诗：与 ./poet write 月 --seed 26 写出的是同一首
poem = write_one(model, tok, "月", seed=26)
show("模型写的诗", poem.text)
table(
    ["第几句", "这一句", "字数"],
    [[i + 1, line, len(line)] for i, line in enumerate(split_lines(poem.text))],
    title=f"{'五言' if poem.form == 5 else '七言'}绝句，关键词“月”",
)

# 倒推最后一步：模型是怎样选出全诗最后一个汉字（第四句的韵脚）的。
# 前文 = 条件区 <bos> <form> 月 <sep> + 最后一个汉字之前的全部正文
cut = len(poem.text) - 2  # 最后两个字符是“韵脚”和“。”
prefix_text, answer = poem.text[:cut], poem.text[cut]
print()
show("1. 文本：前文（正文部分）", prefix_text)
ids = torch.tensor([[BOS, form_of(line_length=poem.form).token] + tok.encode("月") + [SEP] + tok.encode(prefix_text)])
show("2. 编号 ids 的形状 [B, T]", list(ids.shape))
show("   前 8 个编号", ids[0, :8].tolist())
show("   对应的标记", [tok.tokens[i] for i in ids[0, :8].tolist()])

with torch.no_grad():
    T = ids.shape[1]
    chars = model.characters(ids)  # [B, T, C]
    pos = model.positions(torch.arange(T))  # [T, C]
    hidden = chars + pos  # [B, T, C]
    show("3. 字向量 characters(ids) [B, T, C]", list(chars.shape))
    show("   位置向量 positions(0..T-1) [T, C]", list(pos.shape))
    show("   相加后 [B, T, C]", list(hidden.shape))
    for i, block in enumerate(model.blocks):  # 每层：注意力 + 前馈网络，形状不变
        hidden = block(hidden)
        show(f"4. 第 {i + 1} 层 Block 之后", list(hidden.shape))
    hidden = model.norm(hidden)
    logits = model.head(hidden)  # [B, T, V]：每个位置都给下一个字打分
    show("5. logits [B, T, V]", list(logits.shape))
    same = torch.allclose(logits, model(ids)[0], atol=1e-5)
    show("   与直接调用 model(ids) 的结果相同", same)
    last = logits[0, -1]  # [V]：只要最后一个位置的分数
    probs = torch.softmax(last, dim=-1)  # [V]，和为 1
    show("6. 最后一个位置的概率 [V]", list(probs.shape))
    show("   概率之和", probs.sum().item())

top = torch.topk(probs, 5)
table(
    ["名次", "字", "编号", "分数 logit", "概率"],
    [
        [r + 1, tok.tokens[i], i, last[i].item(), p]
        for r, (p, i) in enumerate(zip(top.values.tolist(), top.indices.tolist()))
    ],
    title="7. 下一个字：概率最高的 5 个候选",
)
rank = int((probs > probs[tok.stoi[answer]]).sum()) + 1
show("   诗里实际写的字", f"“{answer}”：第 {rank} 名，概率 {probs[tok.stoi[answer]].item():.4f}")

# 整门课的地图：流水线的每一段在哪一课亲手搭出来；形状用的是上面这一次的真实数字
B, V, C = ids.shape[0], cfg.vocab_size, cfg.width
stages = {
    1: ("整条流水线", "—"),
    2: ("读懂形状", "—"),
    3: ("语料", "str"),
    4: ("清洗", "str"),
    5: ("文本 → 编号", f"[{B}, {T}]"),
    6: ("条件区", f"[{B}, {T}]"),
    7: ("基线", f"[{V}, {V}]"),
    8: ("字向量", f"[{B}, {T}, {C}]"),
    9: ("位置向量", f"[{T}, {C}]"),
    10: ("注意力", f"[{B}, {T}, {C}]"),
    11: ("多头", f"[{B}, {cfg.n_heads}, {T}, {C // cfg.n_heads}]"),
    12: ("前馈网络", f"[{B}, {T}, {C}]"),
    13: ("残差、归一化", f"[{B}, {T}, {C}]"),
    14: (f"{cfg.n_layers} 层 → logits", f"[{B}, {T}, {V}]"),
    15: ("损失", "一个数"),
    16: ("更新参数", "—"),
    17: ("训练", "—"),
    18: ("model.pt", "—"),
    19: ("看曲线", "—"),
    20: ("选下一个字", f"[{V}] → 编号"),
    21: ("采样", f"[{V}]"),
    22: ("格式", f"[{V}] 掩码"),
    23: ("藏头", f"[{V}] 掩码"),
    24: ("押韵", "—"),
    25: ("评价", "—"),
    26: ("自己训练", "—"),
}
table(
    ["课", "课名", "哪一段", "本次的形状"],
    [
        [f"{l['number']:02d}", l["title"], *stages[l["number"]]]
        for l in read_toml(ROOT / "lessons" / "manifest.toml")["lesson"]
    ],
    title="课程地图：每一段在哪一课搭出来",
)
