"""第 05 课实验：汉字表。在仓库根目录执行 .venv/bin/python lessons/05/experiment.py。"""

from collections import Counter

from poetry_gpt.data import SPECIAL, UNK, Tokenizer, default_tokenizer, load_poems
from poetry_gpt.labs import setup_experiment, show, table

setup_experiment()

tok = default_tokenizer()  # 随课程发布的 data/vocab.json
poems = load_poems()
train = [p for p in poems if p["split"] == "train"]
val = [p for p in poems if p["split"] == "val"]

# 1. 表的开头：特殊标记在前，然后按训练集频数从高到低
show("汉字表大小 V（含特殊标记）", len(tok))
table(
    ["编号", "标记", "训练集出现次数"],
    [[i, tok.tokens[i], tok.counts[i]] for i in range(len(SPECIAL) + 6)],
    title="汉字表的前 13 行",
)
show("最后一个编号上的字", f"{len(tok) - 1} → {tok.tokens[-1]}（出现 {tok.counts[-1]} 次）")

# 2. 编码与解码：一首真实的诗来回走一趟
spring = next(p for p in train if p["title"] == "春晓" and p["author"] == "孟浩然")
ids = tok.encode(spring["text"])
show("原文", spring["text"])
show("编号（前 12 个）", ids[:12])
show("编号个数（20 个汉字 + 4 个标点）", len(ids))
show("解码后与原文相同", tok.decode(ids) == spring["text"])

# 3. 表外字：val 里有、训练集里出现不到 2 次的字
val_chars = "".join(p["text"] for p in val)
outside = Counter(ch for ch in val_chars if ch not in tok)
show("val 的字数（含标点）", len(val_chars))
show("其中表外字出现次数", sum(outside.values()))
show("表外字有几种", len(outside))
show("举几个表外字", "".join(sorted(outside)[:12]))
example = next(p for p in val if "蓡" in p["text"])
ids = tok.encode(example["text"])
show("含表外字的诗", f"{example['author']}：{example['text']}")
show("“蓡”编码成", ids[example["text"].index("蓡")])
show("解码回来", tok.decode(ids))
show("来回一趟还相同吗", tok.decode(ids) == example["text"])

# 4. 为什么表要固定下来随课程发布
rebuilt = Tokenizer.build((p["text"] for p in train), min_count=2)
show("用训练集重建的表与发布的表指纹相同", rebuilt.vocab_hash == tok.vocab_hash)
show("发布的表的指纹 vocab_hash", tok.vocab_hash)
tang = Tokenizer.build((p["text"] for p in train if p["dynasty"] == "唐"), min_count=2)
table(
    ["字", "发布的表里的编号", "只用唐诗建的表里的编号"],
    [[ch, tok.stoi[ch], tang.stoi.get(ch, UNK)] for ch in "月风春鸟"],
    title="换一批诗建表，同一个字的编号就变了",
)
show("只用唐诗建的表的指纹", tang.vocab_hash)

# 5. 最少出现次数 min_count：表的大小与 <unk> 比例此消彼长
counts = Counter()  # 只数一遍，下面每一行都从它推出来
for p in train:
    counts.update(p["text"])
rows = []
for m in (1, 2, 3, 5, 10, 20):
    V = len(SPECIAL) + sum(n >= m for n in counts.values())
    unk = sum(counts[ch] < m for ch in val_chars) / len(val_chars)
    rows.append([m, V, f"{unk:.4%}", V * 128])
table(
    ["min_count", "汉字表大小 V", "val 中 <unk> 比例", "字向量表参数（V×128）"],
    rows,
    title="min_count 越大，表越小，<unk> 越多",
)
