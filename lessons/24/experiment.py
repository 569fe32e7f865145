"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/24/experiment.py。"""

from collections import Counter

import torch

from poetry_gpt import prosody, rhyme_book
from poetry_gpt.checkpoint import load_model
from poetry_gpt.common import COURSE_SEED, DEFAULT_DATA, read_json
from poetry_gpt.constraints import Constraint
from poetry_gpt.data import BOS, EOS, FIVE, SEP, SEVEN, default_tokenizer, load_poems, split_lines
from poetry_gpt.generate import write_poems
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.metrics import eval_prompts
from poetry_gpt.model import KVCache
from poetry_gpt.sampling import SAMPLING, sample_next
from poetry_gpt.settings import PLAIN, VERSE, Rules

setup_experiment(threads=1)  # 本课只写诗：每一步都是很小的运算，一个线程更快（./poet write 也只用一个）

tok = default_tokenizer()
model, _ = load_model()
model.eval()
TABLE = prosody.load_table()
names = lambda groups: " ".join(prosody.rhyme_name(g) for g in groups) or "—"  # noqa: E731  下平声七阳 → 阳
MARK = {prosody.PING: "平", prosody.ZE: "仄", prosody.BOTH: "两", prosody.UNKNOWN: "？"}  # 两：平仄两读

# 1. 平水韵表：每个字属于哪几个韵部（data/rhymes.json），平仄由韵部定
print("1. 平水韵表（data/rhymes.json）")
kinds = Counter(g[:2] if g[1] != "平" else "平声" for g in rhyme_book.GROUPS)
show(
    "韵部",
    f"{len(rhyme_book.GROUPS)} 个：平声 {kinds['平声']}（上平声、下平声），上声 {kinds['上声']}，"
    f"去声 {kinds['去声']}，入声 {kinds['入声']}",
)
show("表里的字", len(TABLE))
show("平仄（tone_class）", dict(Counter(prosody.tone_class(ch) for ch in TABLE)))
several = [ch for ch, entry in TABLE.items() if len(entry["groups"]) > 1]
show(
    "属于几个韵部的字",
    f"{len(several)} 个，其中平仄两读 {sum(prosody.tone_class(c) == prosody.BOTH for c in several)}，"
    f"只有平声 {sum(prosody.tone_class(c) == prosody.PING for c in several)}，"
    f"只有仄声 {sum(prosody.tone_class(c) == prosody.ZE for c in several)}",
)
tones = read_json(DEFAULT_DATA / "tones.json")
both = [ch for ch in TABLE if ch in tones]
differ = Counter((tones[ch], prosody.tone_class(ch)) for ch in both if tones[ch] != prosody.tone_class(ch))
show("tones.json 里也有的字 / 平仄与表相同", f"{len(both)} / {len(both) - sum(differ.values())}")
show("不同的（tones.json → 表：个数）", {f"{a} → {b}": n for (a, b), n in differ.most_common()})
show("韵部的全名与简称", f"看：{'、'.join(prosody.rhyme_groups('看'))} → {names(prosody.rhyme_groups('看'))}")
rows = []
for ch in "光霜月白国石一不看长行衰啼碗":
    entry = TABLE.get(ch)
    used = " ".join(f"{prosody.rhyme_name(g)} {n}" for g, n in entry["rhymes"].items()) if entry else "—"
    rows.append(
        [
            ch,
            names(prosody.rhyme_groups(ch)),
            prosody.tone_class(ch),
            prosody.line_tone(ch),
            entry["count"] if entry else "表里没有",
            used,
        ]
    )
table(
    ["字", "韵部", "句尾", "句中", "语料次数", "作韵脚时：韵部 次数"],
    rows,
    title="几个字（句尾、句中：字在句尾与句中的平仄；语料次数：表记下的）",
)
struck = {ch: e["struck"] for ch, e in TABLE.items() if "struck" in e}
show(
    "建表时去掉的读音（诗人不用）",
    f"{len(struck)} 个字，如 "
    + "，".join(f"{ch} {names(g)}（押韵 {sum(g.values())} 次）" for ch, g in struck.items() if ch in "国汉征龙"),
)
both = [ch for ch, e in TABLE.items() if e["tone"] == prosody.BOTH]
inside = Counter(prosody.line_tone(ch) for ch in both)
show(
    "两读的字在句中",
    f"{len(both)} 个：按格律句里的用法定为平 {inside[prosody.PING]}、仄 {inside[prosody.ZE]}，"
    f"仍是两读 {inside[prosody.BOTH]}",
)
for ch in "不中看听":
    v = TABLE[ch]["line_votes"]
    show(f"  {ch}：格律句二四六字上读平 / 读仄", f"{v['平']} / {v['仄']} 次 → 句中 {prosody.line_tone(ch)}")
show(
    "碗在 val 诗里出现",
    f"{sum(p['text'].count('碗') for p in load_poems('val'))} 次——韵表的来源没收这个字，表里没有就是“未知”，从不猜"
    "（啼也没收，建表时补上了，见 data/SOURCE.md）",
)

# 2. 一首名诗逐字查：杜牧《山行》
print()
print("2. 逐字查一首诗（平仄一栏：两 = 平仄两读，？ = 表里查不到）")


def check(text):
    """逐句打印：诗句、每字平仄、最合的格式（每字都论）、逐字合不合、句尾字的韵部；再印押韵、宽式得分、粘对。"""
    strict = prosody.tone_report(text)
    show("  最合的格式", f"{strict.template}（每字都论的得分 {strict.score:.3f}）")
    for i, (line, want, marks) in enumerate(zip(split_lines(text), prosody.TEMPLATES[strict.template], strict.marks)):
        got = "".join(MARK[t] for t in prosody.poem_tones(split_lines(text))[i])
        ok = "".join("○" if m == prosody.MATCH else "×" if m == prosody.MISMATCH else "？" for m in marks)
        show(f"  第 {i + 1} 句", f"{line}  {got}  要{want}  {ok}  {line[-1]}：{names(prosody.rhyme_groups(line[-1]))}")
    r = prosody.quatrain_rhyme(text)
    show(
        "  二、四句共有的韵部",
        f"{names(r.groups)}（押韵 {r.rhymes}，首句入韵 {r.first_line}，韵的平仄 {r.level or '—'}）",
    )
    lenient = prosody.tone_report(text, lenient=True)
    show("  宽式（一三五不论）得分", lenient.score, digits=3)
    show("  孤平、三平尾 / 拗救", f"{lenient.faults or '无'} / {lenient.repairs or '无'}")
    show(
        "  粘对",
        " ".join(
            f"{a}{b}{link.kind}{'合' if link.ok else '不合' if link.ok is False else '说不清'}"
            for link in prosody.nian_dui(text)
            for a, b in [link.lines]
        ),
    )


SHAN_XING = "远上寒山石径斜，白云生处有人家。停车坐爱枫林晚，霜叶红于二月花。"
show("杜牧《山行》", SHAN_XING)
check(SHAN_XING)

# 3. 几首名诗的韵脚：多音字、几个共有的韵部、仄韵、？、表里查不到的字
print()
print("3. 几首名诗的句尾字（quatrain_rhyme：二、四句有一个共同的韵部就押韵）")
for title, text in (
    ("孟浩然《春晓》", "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。"),
    ("李白《秋浦歌》其十五", "白发三千丈，缘愁似个长。不知明镜里，何处得秋霜。"),
    ("李白《清平调》其三", "名花倾国两相欢，长得君王带笑看。解释春风无限恨，沉香亭北倚阑干。"),
    ("白居易《王昭君》其二", "汉使却回凭寄语，黄金何日赎蛾眉？君王若问妾颜色，莫道不如宫里时。"),
    ("贺知章《回乡偶书》其一", "少小离家老大回，乡音难改鬓毛衰。儿童相见不相识，笑问客从何处来。"),
):
    r = prosody.quatrain_rhyme(text)
    ends = "｜".join(f"{ch} {names(prosody.rhyme_groups(ch))}" for ch in (r.endings[0], r.endings[1], r.endings[3]))
    show(title, f"一二四句尾 {ends} → 共有 {names(r.groups)}，首句入韵 {r.first_line}，韵 {r.level or '—'}")
unknown = lambda text: [ch for ch in text if prosody.tone_class(ch) == prosody.UNKNOWN]  # noqa: E731
show(
    "查不到的字：《春晓》 / 白居易《山泉煎茶有怀》",
    f"{unknown('春眠不觉晓处处闻啼鸟夜来风雨声花落知多少')} / {unknown('坐酌泠泠水看煎瑟瑟尘无由持一碗寄与爱茶人')}",
)

# 4. 一三五不论的例外：孤平、三平尾，以及拗救
print()
print("4. 孤平、三平尾与拗救（tone_report 的 faults、repairs）")
LE_YOU_YUAN = "向晚意不适，驱车登古原。夕阳无限好，只是近黄昏。"
show("李商隐《登乐游原》", LE_YOU_YUAN)
check(LE_YOU_YUAN)
CHU_SAI = "秦时明月汉时关，万里长征人未还。但使龙城飞将在，不教胡马度阴山。"
for title, text in (
    ("王昌龄《出塞》", CHU_SAI),
    ("第二句改成“万里远征客未还”", CHU_SAI.replace("长征人", "远征客")),
    ("第四句改成“不教胡马来阴山”", CHU_SAI.replace("度阴山", "来阴山")),
):
    r = prosody.tone_report(text, lenient=True)
    tails = " ".join("".join(MARK[t] for t in tones[-5:]) for tones in prosody.poem_tones(split_lines(text)))
    show(title, f"各句后五字 {tails}｜宽式 {r.matched}/{r.checked} = {r.score:.3f}，毛病 {r.faults or '无'}")
show(
    "《出塞》每字都论", f"{prosody.tone_report(CHU_SAI).score:.3f}（不：句尾可押尤韵，句中是入声仄——“不教”的“不”不合）"
)
val_faults = Counter(
    prosody.tail_fault(t) for p in load_poems("val") for t in prosody.poem_tones(split_lines(p["text"]))
)
show("val 的 4924 首人写的诗里（每句都查，同练习）", f"孤平 {val_faults['孤平']} 句，三平尾 {val_faults['三平尾']} 句")

# 5. 模型写的一首诗，同样逐字查
print()
print("5. 随课程发布的模型写的诗（关键词“月”、七言、种子 0）")
verse = write_poems(model, tok, "月", form=7, seed=0)[0]
show("默认的诗律解码（rules=VERSE）", verse.text)
check(verse.text)
plain = write_poems(model, tok, "月", form=7, seed=0, rules=PLAIN)[0]
r = prosody.quatrain_rhyme(plain.text)
show("同一个种子、只守格式（rules=PLAIN）", plain.text)
show(
    "  句尾字 / 二、四句共有的韵部",
    f"{''.join(r.endings)} / {names(r.groups)}（押韵 {r.rhymes}，同一个字 {r.same_character}）",
)
show("  宽式得分", prosody.tone_report(plain.text, lenient=True).score, digits=3)

# 6. 诗律解码怎样用这张表：沿《山行》逐格走一遍 Constraint(rules=VERSE)
print()
print("6. 诗律解码每句最后一格允许几个字（沿《山行》走，七言，默认 rules=VERSE）")
c = Constraint(tok, 7, rules=VERSE)
for ch in SHAN_XING:
    line, pos = len(c.lines) - 1, len(c.lines[-1])
    if pos == 6:
        mask = c.allowed()
        rhyme = (
            [g for g, on in zip(rhyme_book.GROUPS, c.verse.rhyme.tolist()) if on] if c.verse.rhyme is not None else []
        )
        first = "".join(tok.tokens[t] for t in mask.nonzero().flatten()[:10].tolist())
        show(
            f"第 {line + 1} 句句尾",
            f"可用的韵部 {names(rhyme)}，还可能的格式 {len(c.verse.templates)} 种，"
            f"允许 {int(mask.sum())} 个（{first}…）；《山行》写“{ch}”",
        )
    c.advance(tok.stoi[ch])
rows = []
for mode in ("strict", "lenient", "off"):
    c = Constraint(tok, 7, rules=Rules(tones=mode))
    counts = []
    for ch in SHAN_XING[:15]:
        if len(c.lines) == 2 and len(c.lines[-1]) < 7:
            counts.append(int(c.allowed().sum()))
        c.advance(tok.stoi[ch])
    rows.append([f"--tones {mode}", *counts])
table(["平仄约束", *map(str, range(7))], rows, title="写完“远上寒山石径斜，”后，第二句第 0–6 格各允许几个字")

# 7. 100 个提示：只守格式、--no-rhyme、默认的诗律解码
print()
print("7. 100 个提示（./poet eval 的前 100 个固定提示、同样的种子 26 + i）")


def write(keywords, form, rules, seeds, record):
    """与 write_one(..., rules=rules) 同样的步骤，一批几首一起写（同第 22 课）；record 收集第四句最后一格
    “允许的字”本来占模型概率的多少。"""
    B = len(keywords)
    gens = [torch.Generator().manual_seed(s) for s in seeds]
    cache = KVCache(model.config.n_layers)
    prompts = [[BOS, FIVE if form == 5 else SEVEN] + tok.encode(kw) + [SEP] for kw in keywords]
    constraints = [Constraint(tok, form, kw, rules=rules) for kw in keywords]
    bodies, done = [[] for _ in range(B)], [False] * B
    with torch.no_grad():
        logits = model(torch.tensor(prompts), kv_cache=cache)[0][:, -1]  # [B, V]
        while not all(done):
            step = []
            for b in range(B):
                token = EOS
                if not done[b]:
                    c = constraints[b]
                    if (len(c.lines), len(c.lines[-1])) == (4, form - 1):  # 第四句最后一格：韵脚
                        record.append(torch.softmax(logits[b], -1)[c.allowed()].sum().item())
                    token = sample_next(
                        c.apply(logits[b]), SAMPLING.temperature, SAMPLING.top_k, SAMPLING.top_p, gens[b]
                    )
                    if token == EOS:
                        done[b] = True
                    else:
                        bodies[b].append(token)
                        c.advance(token)
                step.append([token])
            logits = model(torch.tensor(step), kv_cache=cache)[0][:, -1]
    return [tok.decode(body) for body in bodies]


prompts = eval_prompts(100)
rows, written_by = [], {}
for name, rules in (("PLAIN", PLAIN), ("--no-rhyme", Rules(rhyme=False)), ("VERSE", VERSE)):
    poems, record = {}, []
    for form in (5, 7):
        index = [i for i, (_, f) in enumerate(prompts) if f == form]
        written = write([prompts[i][0] for i in index], form, rules, [COURSE_SEED + i for i in index], record)
        poems.update(zip(index, written))
    written_by[name] = [poems[i] for i in range(len(prompts))]
    reports = [prosody.quatrain_rhyme(p) for p in written_by[name]]
    rhymed = [r for r in reports if r.rhymes]
    tones = [prosody.tone_report(p, lenient=True) for p in written_by[name]]
    rows.append(
        [
            name,
            f"{len(rhymed)}%",
            f"{sum(not r.same_character for r in rhymed)}%",
            f"{sum(r.first_line for r in rhymed)}%",
            sum(t.score for t in tones) / len(tones),
            f"{sum(bool(t.faults) for t in tones)}%",
            sum(record) / len(record),
        ]
    )
table(
    [
        "解码",
        "二、四句押韵",
        "押韵且两字不同",
        "首句入韵",
        "宽式平仄得分",
        "有孤平或三平尾",
        "韵脚格允许的字本来占的概率",
    ],
    rows,
    title=f"同样 {len(prompts)} 个提示（五言、七言各 50）",
    digits=3,
)
i = next(i for i, p in enumerate(written_by["--no-rhyme"]) if not prosody.quatrain_rhyme(p).rhymes)
form = "五言" if prompts[i][1] == 5 else "七言"
show(f"提示 {i}（从 0 编号；“{prompts[i][0]}”，{form}）--no-rhyme", written_by["--no-rhyme"][i])
show(f"提示 {i} VERSE", written_by["VERSE"][i])
