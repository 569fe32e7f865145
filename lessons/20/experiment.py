"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/20/experiment.py。"""

import sys
import time

import torch

from poetry_gpt.checkpoint import CheckpointError, load_model
from poetry_gpt.data import BOS, EOS, FIVE, SEP, SEVEN, default_tokenizer
from poetry_gpt.generate import greedy_cached, write_one
from poetry_gpt.labs import below, measured, say, setup_experiment, show, table
from poetry_gpt.model import KVCache
from poetry_gpt.probes import next_token_logits
from poetry_gpt.sampling import SamplingConfig

setup_experiment()

tok = default_tokenizer()
try:
    model, _ = load_model()  # data/model.pt：随课程发布的模型
except CheckpointError as e:
    sys.exit(f"读不了随课程发布的模型：{e}")
L = model.config.context_length
prompt = [BOS, FIVE] + tok.encode("月") + [SEP]  # 条件区：<bos> <5> 月 <sep>


def next_logits(ids):
    """整段重算：把到目前为止的全部编号送进模型，只取最后一个位置的分数 [V]。"""
    with torch.no_grad():
        return model(torch.tensor([ids]))[0][0, -1]


def greedy(next_logits, prompt, eos, context_length, record=None):
    """贪心解码（本课练习的答案）：每一步取分数最高的字，遇到 <eos> 或写满前文长度就停。"""
    ids = list(prompt)
    while len(ids) < context_length:
        logits = next_logits(ids)
        if record is not None:
            record.append(logits)
        token = int(torch.argmax(logits))
        if token == eos:
            break
        ids.append(token)
    return ids[len(prompt) :]


# 1. 逐字生成：每一步把整段送进模型，取最后一个位置的分数，选分数最高的字
print("1. 逐字生成（贪心）：条件区 <bos> <5> 月 <sep>")
full_logits = []
body = greedy(next_logits, prompt, EOS, L, record=full_logits)
rows = []
for step, logits in enumerate(full_logits[:6] + full_logits[-1:]):
    t = step if step < 6 else len(full_logits) - 1
    probs = torch.softmax(logits, -1)
    top = torch.topk(probs, 3)
    chosen = body[t] if t < len(body) else EOS
    rows.append(
        [
            t,
            len(prompt) + t,
            " ".join(f"{tok.tokens[i]} {p:.3f}" for p, i in zip(top.values.tolist(), top.indices.tolist())),
            tok.tokens[chosen],
        ]
    )
table(["第几步", "送进模型的位置数 T", "概率最高的 3 个", "选中"], rows, title="前 6 步和最后一步（从 0 数）")
show("写出的诗", tok.decode(body))
show("写出的编号个数（不含 <eos>）", len(body))
show("最后一步 <eos> 的概率", torch.softmax(full_logits[-1], -1)[EOS].item())
show("<eos> 在结果里吗", EOS in body)

# 2. 贪心为什么会重复：一首诗说明不了谁更单调，所以在第 3 部分同样的 8 个提示上比
print()
say("2. 贪心为什么会重复：关键词 月春山雪 × 五言、七言，每个提示贪心 1 首、按概率采样 3 首（种子 0–2），都不加约束")


def char_counts(text):
    """一首诗去掉标点后的 (字数, 不同的字, 与前面某个字重复的字数)；重复的字数就是字数减不同的字。"""
    chars = [ch for ch in text if ch not in "，。？！"]
    return len(chars), len(set(chars)), len(chars) - len(set(chars))


def mean(counts, i):
    """一组计数里第 i 项的平均（i：0 字数，1 不同的字，2 重复的字数）。"""
    return sum(c[i] for c in counts) / len(counts)


NUMERAL = {5: "五", 7: "七"}
greedy_temp = SamplingConfig(temperature=0)  # 温度 0：sample_next 直接取 argmax，就是贪心
compared = []  # 每个提示一项：(关键词, 体裁, 贪心诗, 贪心诗的计数, 3 首采样诗的计数)
for kw in "月春山雪":
    for form in (5, 7):
        # 两边都用 write_one、都不加约束，只有取字的办法不同：比出来的差别才是贪心与采样本身的
        greedy_text = write_one(model, tok, kw, form=form, sampling=greedy_temp, constrained=False).text
        sampled = [
            write_one(model, tok, kw, form=form, seed=s, constrained=False).text for s in range(3)
        ]  # 几首就够比，实验要在几秒内跑完
        compared.append((kw, form, greedy_text, char_counts(greedy_text), [char_counts(t) for t in sampled]))
all_greedy = [g for *_, g, _ in compared]
all_sampled = [c for *_, s in compared for c in s]
rows = [
    [f"{kw} {NUMERAL[form]}言", g[1], g[2], f"{mean(s, 1):.1f}", f"{mean(s, 2):.1f}"] for kw, form, _, g, s in compared
]
rows.append(["平均"] + [f"{mean(c, i):.2f}" for c in (all_greedy, all_sampled) for i in (1, 2)])
table(
    ["提示", "贪心：不同", "贪心：重复", "采样平均：不同", "采样平均：重复"],
    rows,
    title="不同：不同的字；重复：与前面某个字重复的字数",
)
# 不加约束时诗的长短可能不一样，字多了自然重复多：先看两边的字数一样，再比重复
show("每首的字数，平均（贪心、采样）", [mean(all_greedy, 0), mean(all_sampled, 0)], digits=1)
more = sum(g[2] > mean(s, 2) for *_, g, s in compared)
show("贪心诗比同一提示的采样诗平均重复得多的提示", f"{more} 个（共 {len(compared)} 个）")
kw, form, greedy_text, *_ = max(compared, key=lambda c: c[3][2])  # 重复最多的；一样多时取先出现的
show(f"重复最多的贪心诗（{kw}，{NUMERAL[form]}言）", greedy_text)
written = tok.encode(greedy_text)
# 沿着这首诗逐格读出模型的打分（probes.next_token_logits）：第 t 行就是贪心写第 t 个字时看到的分数
step_probs = torch.softmax(
    next_token_logits(model, [BOS, FIVE if form == 5 else SEVEN] + tok.encode(kw) + [SEP], written), -1
)
repeated = [(t, ch) for t, ch in enumerate(greedy_text) if ch not in "，。？！" and ch in greedy_text[:t]]
show(
    "其中重复的字被选中时的概率（贪心选的都是当时的第一名）",
    [f"{ch} {step_probs[t, written[t]]:.3f}" for t, ch in repeated],
)

# 3. KV 缓存：同样的分数，少算很多位置
print()
print("3. KV 缓存")
cached_logits = []
body_cached = greedy_cached(model, prompt, EOS, L, record=cached_logits)
diff = max((a - b).abs().max().item() for a, b in zip(full_logits, cached_logits))
show("带缓存写出的诗相同", body_cached == body)
show("每一步的分数：最大相差（舍入差：换一种 CPU、换线程数就变）", measured(f"{diff:.2e}"))
show("  不到 1e-4", diff < 1e-4)
show("logits 的数量级（最大绝对值）", max(l.abs().max().item() for l in full_logits), digits=2)
n_steps = len(full_logits)
show("整段重算：送进模型的位置数合计", sum(len(prompt) + t for t in range(n_steps)))
show("KV 缓存：送进模型的位置数合计", len(prompt) + n_steps - 1)
prompts = [[BOS, form] + tok.encode(kw) + [SEP] for kw in "月春山雪" for form in (FIVE, SEVEN)]
greedy(next_logits, prompts[0], EOS, L)  # 先各跑一遍热身，计时更稳
greedy_cached(model, prompts[0], EOS, L)
t_full = t_cached = 0.0
for p in prompts:  # 两种写法交替计时：机器忙闲对两边影响相同
    started = time.perf_counter()
    greedy(next_logits, p, EOS, L)
    t_full += time.perf_counter() - started
    started = time.perf_counter()
    greedy_cached(model, p, EOS, L)
    t_cached += time.perf_counter() - started
show(f"{len(prompts)} 首贪心诗，整段重算（秒）", measured(t_full), digits=3)
show(f"{len(prompts)} 首贪心诗，KV 缓存（秒）", measured(t_cached), digits=3)
show("整段重算用时 ÷ KV 缓存用时（本机、同一进程里测）", measured(t_full / t_cached), digits=1)
with torch.no_grad():  # 序列越长差得越多：只看第 60 个位置这一步
    ids = torch.randint(7, len(tok), (1, 60))
    t_one_full = t_one_cached = 0.0
    for _ in range(10):
        started = time.perf_counter()
        model(ids)  # 整段重算：60 个位置全部再算一遍
        t_one_full += (time.perf_counter() - started) / 10
        cache = KVCache(model.config.n_layers)
        model(ids[:, :59], kv_cache=cache)  # 前 59 个位置已在缓存里（不计时）
        started = time.perf_counter()
        model(ids[:, 59:], kv_cache=cache)  # KV 缓存：只算第 60 个位置
        t_one_cached += (time.perf_counter() - started) / 10
show("第 60 个位置这一步：整段重算 60 个位置（毫秒）", measured(t_one_full * 1000), digits=2)
show("第 60 个位置这一步：KV 缓存只算 1 个位置（毫秒）", measured(t_one_cached * 1000), digits=2)
show("这一步的用时之比", measured(t_one_full / t_one_cached), digits=1)

# 4. past：缓存里已有几个位置。write_one 一次送进整个条件区（past 0，T 4）；
#    这里故意把条件区分两次送（先 <bos>，再 <5> 月 <sep>），好看到 past > 0、T > 1 的切片
print()
print("4. past、位置编号与因果遮挡的切片（条件区故意分两次送；write_one 是一次送完）")
cache = KVCache(model.config.n_layers)
calls = [[BOS], [FIVE] + tok.encode("月") + [SEP]] + [[t] for t in body[:3]]
rows = []
with torch.no_grad():
    for ids in calls:
        past, T = len(cache), len(ids)
        model(torch.tensor([ids]), kv_cache=cache)
        rows.append(
            [
                " ".join(tok.tokens[i] for i in ids),
                past,
                T,
                list(range(past, past + T)),
                f"causal[{past}:{past + T}, :{past + T}]",
            ]
        )
table(
    ["送进的标记", "past", "T", "positions", "因果遮挡取的切片"], rows, title="条件区故意分两次送，之后每次只送一个新字"
)
causal = model.blocks[0].attention.causal
show("causal[1:4, :4]（第 2 次调用：3 行新位置 × 4 列全部位置）", causal[1:4, :4].int().tolist())
show("causal[4:5, :5]（之后每次 1 个新字：能看见全部前文）", causal[4:5, :5].int().tolist())

with torch.no_grad():
    right, wrong = KVCache(model.config.n_layers), KVCache(model.config.n_layers)
    model(torch.tensor([prompt]), kv_cache=right)
    model(torch.tensor([prompt]), kv_cache=wrong)
    new = torch.tensor([[body[0]]])
    good = model(new, kv_cache=right)[0][0, -1]
    hidden = model.characters(new) + model.positions(torch.arange(0, 1))  # 忘了 past：新字又从位置 0 算起
    for block in model.blocks:
        hidden = block(hidden, wrong)
    bad = model.head(model.norm(hidden))[0, -1]
show("忘了 past（新字当成位置 0）：分数最大相差", (good - bad).abs().max().item(), digits=2)
show("正确时概率最高的字", f"{tok.tokens[int(good.argmax())]} {torch.softmax(good, -1).max().item():.3f}")
show("忘了 past 时概率最高的字", f"{tok.tokens[int(bad.argmax())]} {torch.softmax(bad, -1).max().item():.3f}")

# 5. 为什么可以缓存：往后接一个字，前面各位置的结果一点不变
ids = torch.tensor([prompt + body])
with torch.no_grad():
    T = ids.shape[1]
    short = model.hidden_states(ids[:, : T - 1])
    longer = model.hidden_states(ids)
show(f"前 {T - 1} 个位置：接上第 {T} 个字前后的表示，最大相差", below((short - longer[:, : T - 1]).abs().max(), "1e-4"))

# 6. 前文长度：前文 + 写出的字最多 context_length 个
print()
show("前文长度 context_length", L)
show("条件区之后最多还能写几个编号（write_one 的 limit）", L - len(prompt))
short_body = greedy(next_logits, prompt, EOS, 12)
show("把前文长度当成 12：写到第几个就停", f"{len(short_body)} 个：{tok.decode(short_body)}")
full = KVCache(model.config.n_layers)
with torch.no_grad():
    model(torch.zeros(1, L, dtype=torch.long), kv_cache=full)
    try:
        model(torch.tensor([[body[0]]]), kv_cache=full)
    except ValueError as e:
        show(f"缓存里已有 {len(full)} 个位置，再送一个字", str(e))
