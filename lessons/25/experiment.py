"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/25/experiment.py。

./poet eval 的每一行，在随课程发布的模型和 val 里人写的诗上并排算一遍。完整的 ./poet eval（val 全部 4,924 首、
200 个提示、每个提示写两遍）两核上要一两分钟；这里只用一小批固定的诗：val 里等距取的 512 首算交叉熵，
./poet eval 的前 8 个提示写诗，人写的诗取 ./poet eval 用的同一批。
第 2–6 段每个提示只写一份（./poet eval 默认的做法，前 8 首）；第 7 段每个提示写 DRAFTS 份草稿、留下一份（./poet eval --drafts 8）。
"""

import math
from collections import Counter

import torch

from poetry_gpt import prosody
from poetry_gpt.bigram import BigramModel
from poetry_gpt.checkpoint import load_model
from poetry_gpt.common import COURSE_SEED
from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, split_lines
from poetry_gpt.generate import write_drafts, write_one
from poetry_gpt.labs import say, setup_experiment, show, table
from poetry_gpt.loss import mean_cross_entropy
from poetry_gpt.metrics import (
    bigram_repeat,
    char_repeats,
    copy_rate,
    distinct_n,
    eval_prompts,
    format_ok,
    human_poems,
    keyword_hit,
    reader_report,
    train_lines,
)
from poetry_gpt.rerank import best, line_pmi, score_drafts

setup_experiment()

tok = default_tokenizer()
model, _ = load_model()
model.eval()

# 1. 交叉熵：模型与二元基线在同一批诗、同一批目标（正文与 <eos>）上算
print("1. 交叉熵与困惑度（val 里等距取的 512 首，训练时验证用的同一批；单位奈特/字）")
val512 = load_poems("val", 512)
ce = mean_cross_entropy(model, [encode_sample(p, tok) for p in val512])
bigram = BigramModel.fit(load_poems("train"), tok).cross_entropy(val512)
rows = [
    ["均匀猜（ln V）", math.log(len(tok)), len(tok)],
    ["二元基线（第 07 课，k = 0.03）", bigram, math.exp(bigram)],
    ["随课程发布的模型", ce, math.exp(ce)],
]
table(["", "交叉熵", "困惑度 = e^交叉熵"], rows, title="同一批 512 首 val 诗", digits=3)
show("模型 ÷ 基线", ce / bigram, digits=3)

# 2. 写诗：./poet eval 的前 8 个提示，同样的种子（26 + 第几个），受约束（诗律解码）与不受约束各写一遍
print()
say("2. ./poet eval 的前 8 个提示，受约束与不受约束各写一首（一个线程，与 ./poet eval 相同）")
prompts = eval_prompts(8)
torch.set_num_threads(1)
fixed = [write_one(model, tok, kw, form=form, seed=COURSE_SEED + i) for i, (kw, form) in enumerate(prompts)]
free = [
    write_one(model, tok, kw, form=form, seed=COURSE_SEED + i, constrained=False)
    for i, (kw, form) in enumerate(prompts)
]
torch.set_num_threads(2)
rows = []
for (kw, form), a, b in zip(prompts, fixed, free):
    for how, p in (("受约束", a), ("不受约束", b)):
        show(f"{kw}·{form} 言·{how}", p.text)
        rows.append(
            [
                f"{kw}·{form} 言",
                how,
                format_ok(p.text, form),
                keyword_hit(p.text, kw),
                char_repeats(p.text),
                bigram_repeat(p.text),
            ]
        )
table(["提示", "解码", "格式合格", "含关键词", "最多的字几次", "两字组合重复"], rows)


def rate(flags):
    flags = list(flags)
    return sum(flags) / len(flags)


show(
    "格式合格率：受约束 / 不受约束",
    [rate(format_ok(p.text, p.form) for p in fixed), rate(format_ok(p.text, p.form) for p in free)],
)
show(
    "关键词命中率：受约束 / 不受约束",
    [rate(keyword_hit(p.text, p.keywords) for p in fixed), rate(keyword_hit(p.text, p.keywords) for p in free)],
)

# 3. 读者看得到的几行：模型的 8 首与 ./poet eval 用的 100 + 100 首人写的诗
print()
say("3. 押韵、平仄、重复：模型的 8 首与 val 里人写的诗（./poet eval 的“人”两列：同一个种子取的同一批）")
human5, human7 = human_poems(5, 100), human_poems(7, 100)
columns = [
    reader_report([p.text for p in fixed]),
    reader_report([p.text for p in free]),
    reader_report(human5),
    reader_report(human7),
]
labels = (
    ("rhyme", "押韵（两字不同）"),
    ("same_character_rhyme", "同字收尾"),
    ("tone_score", "平仄（宽式）"),
    ("tone_score_strict", "平仄（严式）"),
    ("nian_dui", "粘对全合"),
    ("char_3", "有字用≥3次"),
    ("bigram_repeat", "两字组合重复"),
    ("reused_lines", "与别首同句"),
)
table(
    ["项目", "受约束 8 首", "不受约束 8 首", "人·五言 100", "人·七言 100"],
    [[label] + [report[key] for report in columns] for key, label in labels],
    digits=3,
)

# 4. 抄袭率要有参照：人写的 val 诗里，本来就有多少句与 train 里某一句一字不差
print()
print("4. 抄袭率的参照点")
val = load_poems("val")
val_lines = [line for p in val for line in split_lines(p["text"])]
known = train_lines()
show(
    f"val 全部 {len(val):,} 首、{len(val_lines):,} 句里，与 train 某句一字不差的句子",
    copy_rate([p["text"] for p in val]),
)
show("出现最多的几句（句子, 在 val 里出现几次）", Counter(line for line in val_lines if line in known).most_common(3))
show(
    "模型这 8 首（受约束）/ 8 首（不受约束）的抄袭率",
    [copy_rate([p.text for p in fixed]), copy_rate([p.text for p in free])],
)

# 5. distinct-2 随首数下降：只有首数相同才能比
print()
print("5. distinct-2 与首数：val 里的五言人写诗，取前 n 首")
five = human_poems(5, 10_000)  # 全部五言 val 诗，按种子 26 打乱
table(
    ["首数 n", "两字组合总数", "不同的两字组合", "distinct-2"],
    [
        [n, 4 * 4 * min(n, len(five)), round(distinct_n(five[:n]) * 16 * min(n, len(five))), distinct_n(five[:n])]
        for n in (8, 40, 100, 400, len(five))
    ],
    digits=3,
)
show(
    "同样 8 首：模型受约束 / 模型不受约束 / 人写（五言、七言各 4 首）",
    [distinct_n([p.text for p in fixed]), distinct_n([p.text for p in free]), distinct_n(human5[:4] + human7[:4])],
    digits=3,
)
same = [p.text for p in fixed[:2]]
show("同一首诗放两遍，distinct-2 减半", [distinct_n(same[:1]), distinct_n(same[:1] * 2)], digits=3)

# 6. 没有一个数字抓得住的：每一项都及格，读起来不通；每一项都扣分，却是名篇
print()
print("6. 数字之外")


by_title = {(p["author"], p["title"]): p["text"] for p in val}
poems = [
    ("模型·人·5 言", fixed[0].text),
    ("李商隐《天涯》", by_title["李商隐", "天涯"]),
    ("王维《阙题二首 一》", by_title["王维", "阙题二首 一"]),
]
columns = []
for name, text in poems:
    show(name, text)
    r = prosody.quatrain_rhyme(text)
    columns.append(
        [
            r.rhymes and not r.same_character,
            prosody.tone_score(text, lenient=True),
            all(link.ok for link in prosody.nian_dui(text)),
            char_repeats(text),
            bigram_repeat(text),
            copy_rate([text], known),
        ]
    )
labels = ("押韵", "平仄（宽式）", "粘对全合", "最多的字几次", "两字组合重复", "抄袭率")
table(
    ["项目", "模型", "《天涯》", "《阙题》"],
    [[label] + [c[i] for c in columns] for i, label in enumerate(labels)],
    digits=3,
)

# 7. 先写几份，再挑一份：同样 8 个提示，每个一批写 DRAFTS 份草稿（第 0 份就是上面那首），
#    留下模型自己最有把握（每字平均对数概率最高）的一份：./poet write --drafts 8 与 ./poet eval --drafts 8 的做法
DRAFTS = 8
print()
print(f"7. 先写几份，再挑一份：每个提示一批写 {DRAFTS} 份草稿，留下每字平均对数概率最高的一份")
torch.set_num_threads(1)
batches = [
    write_drafts(model, tok, kw, drafts=DRAFTS, form=form, seed=COURSE_SEED + i) for i, (kw, form) in enumerate(prompts)
]
torch.set_num_threads(2)
show("每个提示的第 0 份草稿就是第 2 段只写一份的那首", [b[0].text for b in batches] == [p.text for p in fixed])
scores = [score_drafts(model, tok, b, "likelihood") for b in batches]
kept = [b[best(s, list(range(len(b))))] for b, s in zip(batches, scores)]
first, pmi = batches[0], line_pmi(model, tok, batches[0])
table(
    ["草稿", "诗", "对数概率", "PMI"],
    [[f"{i} ←" if p is kept[0] else i, p.text, p.log_prob, x] for i, (p, x) in enumerate(zip(first, pmi))],
    title=f"“{prompts[0][0]}”·{prompts[0][1]} 言的 {DRAFTS} 份草稿：每字平均对数概率（奈特/字）、后两句的 PMI，← 是留下的一份",
    digits=3,
)
table(
    ["提示", "第 0 份（只写一份）", "留下的", "留下的是第几份"],
    [[f"{kw}·{form} 言", b[0].log_prob, k.log_prob, b.index(k)] for (kw, form), b, k in zip(prompts, batches, kept)],
    title="每字平均对数概率：只写一份与挑过的",
    digits=3,
)
show(
    "8 首的平均：只写一份 / 挑过的",
    [sum(b[0].log_prob for b in batches) / 8, sum(k.log_prob for k in kept) / 8],
    digits=3,
)
# 模型最有把握的诗，用的是它最熟的字：数一数诗里的字有多少是 train 里最常见的 200 个字
ranked = sorted(range(len(tok)), key=lambda i: -tok.doc_freq[i])
common = {tok.tokens[i] for i in ranked[:200]}


def common_share(texts):
    chars = [ch for text in texts for ch in "".join(split_lines(text))]
    return sum(ch in common for ch in chars) / len(chars)


human8 = human5[:4] + human7[:4]
table(
    ["8 首", "最常见 200 字的占比", "distinct-2"],
    [
        [name, common_share(texts), distinct_n(texts)]
        for name, texts in (
            ("只写一份", [b[0].text for b in batches]),
            ("挑过的", [k.text for k in kept]),
            ("人写（五言、七言各 4 首）", human8),
        )
    ],
    digits=3,
)
