"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/23/experiment.py。"""

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.constraints import Constraint
from poetry_gpt.data import (
    BOS,
    FIVE,
    MAX_CONDITION,
    SEP,
    condition,
    default_tokenizer,
    encode_sample,
    keywords_for,
    load_poems,
    split_lines,
)
from poetry_gpt.generate import GenerationError, check_characters, write_poems
from poetry_gpt.labs import say, setup_experiment, show, table
from poetry_gpt.loss import mean_cross_entropy
from poetry_gpt.probes import next_token_logits
from poetry_gpt.settings import PLAIN

setup_experiment()

tok = default_tokenizer()
model, _ = load_model()
model.eval()

# 1. 输入先规整：繁体换成简体，每个字都要在汉字表里
print("1. 藏头字与关键词的输入")
show("check_characters('風花雪月')", check_characters("風花雪月", tok, "藏头字"))
for bad in ("春夏秋A", "春夏秋㐀"):
    try:
        check_characters(bad, tok, "藏头字")
    except GenerationError as e:
        show(f"check_characters('{bad}')", str(e))

# 2. 写一首藏头诗：没给关键词时，藏头字就当关键词
print()
print("2. 藏头诗 春夏秋冬（五言，种子 0，只守格式的解码 rules=PLAIN）")
poem = write_poems(model, tok, acrostic="春夏秋冬", form=5, seed=0, rules=PLAIN)[0]
show("写出的诗", poem.text)
show("关键词（没给时 = 藏头字）", "".join(poem.keywords))
show("条件区里的字", poem.condition)
ruled = write_poems(model, tok, acrostic="春夏秋冬", form=5, seed=0)[0]
show("默认的诗律解码（第 24 课）写的", ruled.text)
show("默认解码的条件区（data.condition：至多 3 个字，少见的在前）", ruled.condition)
c = Constraint(tok, 5, "春夏秋冬", acrostic="春夏秋冬", rules=PLAIN)
show("还差的字（藏头字不算）", [tok.tokens[t] for t in c.missing])

# 3. 被强制的字，模型本来给它多少概率：把诗逐字读回去，每一格掩码之前的打分
print()
print("3. 被强制的字，模型本来给它多少概率（回放上面 rules=PLAIN 那首诗）")
ids = [BOS, FIVE] + tok.encode(poem.condition) + [SEP]
logits = next_token_logits(model, ids, tok.encode(poem.text))  # [正文字数 + 1, V]
rows = []
for step, ch in enumerate(poem.text):
    if step % 6 == 0:  # 每句第 0 格：藏头字
        probs = torch.softmax(logits[step], -1)
        t = tok.stoi[ch]
        rank = int((probs > probs[t]).sum()) + 1
        top = tok.tokens[int(probs.argmax())]
        rows.append([step // 6, ch, probs[t].item(), rank, f"{top} {probs.max().item():.3f}"])
table(
    ["第几句", "藏头字", "模型给它的概率", "排第几", "模型最想写的字"],
    rows,
    title="藏头格：掩码之后概率是 1，掩码之前是这些",
    digits=4,
)

# 4. 正文要从训练时见过的位置开始：条件区有几个字
print()
say(
    "4. 条件区的长度：正文的下标是 3 + k（从 0 数：<bos>、体裁、k 个关键词、<sep>）；发布的模型训练时 k 是 0–4，base 预设是 1–3"
)
val = [p for p in load_poems("val", 300) if all(line[0] in tok for line in split_lines(p["text"]))][
    :256
]  # 句首字都在汉字表里的 256 首
heads = ["".join(line[0] for line in split_lines(p["text"])) for p in val]  # 每首诗自己的“藏头字”
rows = []
for name, kws in (
    ("第 06 课的排法：keywords_for（1–3 个字）", [keywords_for(p) for p in val]),
    ("四个句首字都放进条件区（4 个字）", [list(dict.fromkeys(h)) for h in heads]),
    (f"condition() 挑出的 ≤ {MAX_CONDITION} 个句首字", [list(condition("", h, tok)) for h in heads]),
):
    samples = [encode_sample(p, tok, keywords=k) for p, k in zip(val, kws)]
    starts = sorted({s.index(SEP) + 1 for s in samples})
    where = str(starts[0]) if starts[0] == starts[-1] else f"{starts[0]}–{starts[-1]}"
    rows.append([name, where, mean_cross_entropy(model, samples)])
table(
    ["条件区", "正文的下标", "交叉熵"],
    rows,
    title=f"同一批 {len(val)} 首 val 诗（下标从 0 数；交叉熵只算正文，奈特/字）",
    digits=3,
)

# 5. 强制字的日程：必含字与藏头字一起时，哪几格被强制
print()
print("5. 必含字“雁”“鸿”+ 藏头 春夏秋冬：模型一直不写它们时，从哪一格起被强制")
c = Constraint(tok, 5, "雁鸿春", acrostic="春夏秋冬", rules=PLAIN)
show("还差的字（“春”是藏头字，不算）", [tok.tokens[t] for t in c.missing])
rows = []
for step, ch in enumerate("春日依山尽，夏河入海流。秋穷千里目，冬上一层楼。"):
    line, pos = len(c.lines) - 1, len(c.lines[-1])
    mask = c.allowed()
    if line == 3 and 0 < pos < 5 or (line, pos) == (2, 4):
        n = int(mask.sum())
        rows.append(
            [
                f"第 {line} 句第 {pos} 格",
                c._free_slots_left(),
                len(c.missing),
                n,
                "".join(tok.tokens[t] for t in mask.nonzero().flatten().tolist()) if n < 5 else "全部汉字",
            ]
        )
    if mask[tok.stoi[ch]]:
        c.advance(tok.stoi[ch])
    else:  # 被强制：写允许的字里的第一个
        c.advance(int(mask.nonzero()[0]))
table(["格子", "还剩的自由格子", "还差几个字", "允许几个", "允许哪些"], rows, title="最后几格")
