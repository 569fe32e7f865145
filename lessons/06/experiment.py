"""第 06 课实验：关键词与条件区。在仓库根目录执行 .venv/bin/python lessons/06/experiment.py。"""

import math
from collections import Counter

from poetry_gpt.data import (
    FUNCTION_CHARS,
    PAD,
    default_tokenizer,
    encode_sample,
    keywords_for,
    load_poems,
    make_batch,
    poem_body,
)
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.model import ModelConfig

setup_experiment()

tok = default_tokenizer()
poems = load_poems()
spring = next(p for p in poems if p["title"] == "春晓" and p["author"] == "孟浩然")

# 1. 关键词：正文里 TF-IDF 最高的字，跳过虚字
body = poem_body(spring["text"])
tf = Counter(body)
rows = []
for ch in tf:
    if ch in FUNCTION_CHARS:
        continue
    df = tok.doc_freq[tok.stoi[ch]]
    idf = math.log(tok.n_docs / (1 + df))
    rows.append([ch, tf[ch], df, idf, tf[ch] * idf])
rows.sort(key=lambda r: (-r[4], body.index(r[0])))  # 与 keywords_for 相同：高分在前，同分先出现的在前
show("诗", f"{spring['author']}《{spring['title']}》{spring['text']}")
show("跳过的虚字", "".join(ch for ch in tf if ch in FUNCTION_CHARS))
show("训练诗首数 N", tok.n_docs)
table(
    ["字", "TF（本诗次数）", "df（含它的训练诗）", "IDF = ln(N/(1+df))", "得分 TF×IDF"],
    rows[:8],
    title="得分最高的 8 个字",
)
show("keywords_for（个数由 id 决定）", keywords_for(spring, tok))
show("keywords_for(k=3)", keywords_for(spring, tok, k=3))

# 2. 一条样本的排布，以及每一格预测的目标
ids = encode_sample(spring, tok)
x, y, mask = make_batch([ids])  # 一条样本的批：[1, T]
show("样本编号", ids)
show("样本长度 / 输入长度 T", [len(ids), x.shape[1]])
table(
    ["位置", "输入", "目标", "计入损失"],
    [[t, tok.tokens[x[0, t]], tok.tokens[y[0, t]], "是" if mask[0, t] else "—"] for t in range(x.shape[1])],
    title="模型读第 t 格、预测第 t+1 格",
)
show("计入损失的目标个数（24 个字与标点 + <eos>）", int(mask.sum()))

# 3. 条件区占位置：最长的样本离前文长度还有多远
val = [p for p in poems if p["split"] == "val"]
lengths = Counter((p["form"], len(keywords_for(p, tok))) for p in val)
rows = []
for (form, k), n in sorted(lengths.items()):
    size = {"五言绝句": 24, "七言绝句": 32}[form]
    rows.append([form, k, n, 2 + k + 1, size + 1, 2 + k + 1 + size + 1])
table(["体裁", "关键词数", "val 首数", "条件区", "正文+<eos>", "样本长度"], rows, title="val 里的样本长度")
longest = max(len(encode_sample(p, tok)) for p in val)
L = ModelConfig(vocab_size=len(tok)).context_length
show("最长样本的编号数", longest)
show("模型要读的位置数（少最后一个）", longest - 1)
show("前文长度 context_length", L)

# 4. 补齐：长短不一的样本排成一批
picks = [spring, next(p for p in val if p["form"] == "七言绝句")]
samples = [encode_sample(picks[0], tok, ["春"]), encode_sample(picks[1], tok)]
x, y, mask = make_batch(samples)
show("两条样本的长度", [len(s) for s in samples])
show("x、y、mask 的形状", [list(x.shape), list(y.shape), list(mask.shape)])
show("第 1 条末尾的输入（补了 <pad>）", tok.decode(x[0, -10:]))
show("每条补了几格", (x == PAD).sum(1))
show("每条计入损失的格数", mask.sum(1))
show("整批计入损失的比例", mask.float().mean())
x64, _, mask64 = make_batch(samples, context_length=L)
show("补到前文长度 64 时的形状", list(x64.shape))
show("补到 64 时计入损失的比例", mask64.float().mean())
