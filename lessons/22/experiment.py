"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/22/experiment.py。"""

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.constraints import KEYWORD_BONUS, LINE_END_CHOICES, Constraint, hanzi_mask
from poetry_gpt.data import BOS, EOS, FIVE, SEP, SEVEN, default_tokenizer, split_lines
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.metrics import eval_prompts, format_ok, keyword_hit
from poetry_gpt.model import KVCache
from poetry_gpt.sampling import SAMPLING, sample_next
from poetry_gpt.settings import PLAIN

setup_experiment()

tok = default_tokenizer()
model, _ = load_model()
model.eval()
names = lambda mask: "".join(
    tok.tokens[i] if len(tok.tokens[i]) == 1 else f" {tok.tokens[i]} " for i in mask.nonzero().flatten().tolist()
)  # noqa: E731

# 1. 每一格的掩码：句中只许汉字，句尾只许这一句的标点，写满四句只许 <eos>
print("1. 允许字的掩码（五言）")
show("汉字表大小 V", len(tok))
show("其中汉字（句中允许的字）", int(hanzi_mask(tok).sum()))
show("LINE_END_CHOICES（第 0、2 句 / 第 1、3 句，从 0 数）", list(LINE_END_CHOICES))
show("“！”在汉字表里吗", "！" in tok)
c = Constraint(tok, 5, rules=PLAIN)
rows = []
for step, ch in enumerate("白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"):
    mask = c.allowed()
    line, pos = len(c.lines) - 1, len(c.lines[-1])
    if pos in (0, 4, 5) and line in (0, 1, 3):
        rows.append(
            [step, f"第 {line} 句第 {pos} 格", int(mask.sum()), names(mask) if mask.sum() < 5 else "全部汉字", ch]
        )
    c.advance(tok.stoi[ch])
rows.append([step + 1, "写完四句", int(c.allowed().sum()), names(c.allowed()), ""])
table(
    ["正文第几个编号", "位置（从 0 数）", "允许几个", "允许哪些", "这首诗写的是"],
    rows,
    title="《登鹳雀楼》逐格的掩码",
)

# 2. 掩码拿走了多少概率：模型自己给合格的字多少概率
print()
print("2. 受约束写一首：模型本来给“允许的字”多少概率")


def write(keywords, form, constrained, seeds, record=None):
    """与 write_one(..., rules=PLAIN) 同样的步骤（KV 缓存、Constraint.apply、sample_next），但一批几首一起写：
    每首一个 Constraint、一个随机数发生器；写完的那几行之后送 <eos> 占位（不计入）。
    关键词都是 1 个字，条件区一样长，正文从同一个位置开始。record 记下每一步允许的字占的概率。"""
    B = len(keywords)
    gens = [torch.Generator().manual_seed(s) for s in seeds]
    cache = KVCache(model.config.n_layers)
    prompts = [[BOS, FIVE if form == 5 else SEVEN] + tok.encode(kw) + [SEP] for kw in keywords]
    constraints = [Constraint(tok, form, kw, rules=PLAIN) if constrained else None for kw in keywords]
    bodies, done = [[] for _ in range(B)], [False] * B
    with torch.no_grad():
        logits = model(torch.tensor(prompts), kv_cache=cache)[0][:, -1]  # [B, V]
        while len(cache) < model.config.context_length and not all(done):
            step = []
            probs = torch.softmax(logits, -1) if record is not None else None
            for b in range(B):
                token = EOS
                if not done[b]:
                    row, c = logits[b], constraints[b]
                    if c is not None:
                        if record is not None:
                            record.append(probs[b][c.allowed()].sum().item())
                        row = c.apply(row)
                    token = sample_next(row, SAMPLING.temperature, SAMPLING.top_k, SAMPLING.top_p, gens[b])
                    if token == EOS:
                        done[b] = True
                    else:
                        bodies[b].append(token)
                        if c is not None:
                            c.advance(token)
                step.append([token])
            logits = model(torch.tensor(step), kv_cache=cache)[0][:, -1]
    return [tok.decode(body) for body in bodies]


record = []
poem = write(["月"], 5, True, [0], record)[0]
show("种子 0、关键词“月”的五言", poem)
show("每一步允许的字占的概率（最小）", min(record), digits=4)
show("每一步允许的字占的概率（平均）", sum(record) / len(record), digits=4)
show("句尾那几步", [round(record[i], 4) for i in (5, 11, 17, 23)])
show("最后一步（只许 <eos>）", record[-1], digits=4)

# 3. 不只是掩码：还差的关键词加 KEYWORD_BONUS，没位置了就强制；一句写到最后一个字时不许重句
print()
print("3. 掩码之外，受约束解码还改了什么")
with torch.no_grad():
    logits = model(torch.tensor([[BOS, FIVE] + tok.encode("雁") + [SEP]]))[0][0, -1]
c = Constraint(tok, 5, "雁", rules=PLAIN)
before = torch.softmax(logits.masked_fill(~c.allowed(), float("-inf")), -1)[tok.stoi["雁"]].item()
after = torch.softmax(c.apply(logits), -1)[tok.stoi["雁"]].item()
show("KEYWORD_BONUS（奈特）", KEYWORD_BONUS)
show("关键词“雁”做第一个字的概率：只有掩码", before, digits=4)
show("关键词“雁”做第一个字的概率：加上 KEYWORD_BONUS", after, digits=4)
show("放大了几倍（还差的字越少见，越接近 e² ≈ 7.39）", after / before, digits=2)
c = Constraint(tok, 5, "雁", rules=PLAIN)
for ch in "白日依山尽，黄河入海流。欲穷千里目，更上一层":
    c.advance(tok.stoi[ch])
show("“雁”一直没写：最后一个字的格子允许几个", int(c.allowed().sum()))
show("允许的是", names(c.allowed()))
c = Constraint(tok, 5, rules=PLAIN)
for ch in "白日依山尽，白日依山":
    c.advance(tok.stoi[ch])
show("第二句也写了“白日依山”：最后一格还许“尽”吗", bool(c.allowed()[tok.stoi["尽"]]))
show("这一格允许几个", int(c.allowed().sum()))

# 4. 100 个提示：受约束与不受约束
print()
print("4. 100 个提示（./poet eval 的前 100 个固定提示：常用字 × 五言、七言）")
prompts = eval_prompts(100)
rows = []
for constrained in (True, False):
    record = []
    poems = {}
    for form in (5, 7):
        index = [i for i, (_, f) in enumerate(prompts) if f == form]
        for i, p in zip(index, write([prompts[i][0] for i in index], form, constrained, index, record)):
            poems[i] = p
    poems = [poems[i] for i in range(len(prompts))]
    fmt = sum(format_ok(p, f) for p, (_, f) in zip(poems, prompts))
    hit = sum(keyword_hit(p, kw) for p, (kw, _) in zip(poems, prompts))
    lines = [split_lines(p) for p in poems]
    repeated = sum(len(set(ls)) < len(ls) for ls in lines)
    question = sum("？" in p for p in poems)
    rows.append(["受约束" if constrained else "不受约束", f"{fmt}%", f"{hit}%", repeated, question])
    if constrained:
        show("受约束时，每一步允许的字占模型概率：平均", sum(record) / len(record), digits=4)
        show("受约束时，允许的字不到 0.99 的步数 / 全部步数", f"{sum(r < 0.99 for r in record)} / {len(record)}")
    else:
        missing = [(kw, p) for p, (kw, _) in zip(poems, prompts) if not keyword_hit(p, kw)]
table(["解码", "格式合格", "关键词全在", "有重句的诗", "用了 ？ 的诗"], rows, title="同样 100 个提示、同样的种子")
show("不受约束时缺关键词的例子", missing[:2])
