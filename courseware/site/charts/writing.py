"""第 20–24 课（写诗）的插图：KV 缓存、温度与截断、格式掩码、藏头字、平仄对照。"""

from __future__ import annotations

import functools

import torch

from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import condition_ids, default_tokenizer, form_of, split_lines
from poetry_gpt.generate import greedy_cached
from poetry_gpt.probes import next_token_logits

from .draw import MUTED, Chart, _bars, _plot, _svg, _text

# ---------- 第 20 课：KV 缓存省下了什么 ----------


def _draw_cache_steps(
    labels: list[str], n_prompt: int, steps_n: int, full: int, cached: int
) -> tuple[int, int, list[str]]:
    """第 20 课的三角形：一步一行，labels 是前文（前 n_prompt 个是条件区）与写出的字，共写 steps_n 步；
    full、cached 是整段重算与 KV 缓存合计要算的位置数。返回 (宽, 高, SVG 片段)。"""
    total = len(labels)
    cell, left, top = 18, 60, 46
    width = left + total * cell + 16
    height = top + steps_n * cell + 30
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            18,
            "每一行是一步，每一格是这一步送进模型的一个位置：浅色＝整段重算要算的，红＝KV 缓存真正要算的",
            12,
            fill=MUTED,
        ),
    ]
    for j, name in enumerate(labels):
        body.append(
            _text(
                left + j * cell + cell / 2,
                top - 8,
                name if len(name) == 1 else "·",
                11,
                "middle",
                MUTED if j < n_prompt else "#2b2620",
            )
        )
    for s in range(steps_n):
        y = top + s * cell
        seen = n_prompt + s  # 这一步前文的长度
        if s % 4 == 0 or s == steps_n - 1:
            body.append(_text(left - 8, y + 13, f"第 {s} 步", 10, "end", MUTED))
        for j in range(seen):
            new = j >= (0 if s == 0 else seen - 1)
            body.append(
                f'<rect x="{left + j * cell}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                f'fill="{"#8c2f1b" if new else "#e8dccb"}"/>'
            )
    body.append(_text(left, height - 10, f"整段重算合计 {full} 个位置，KV 缓存合计 {cached} 个", 12, weight="bold"))
    return width, height, body


def lesson20() -> Chart:
    """发布模型从条件区 <bos> <5> 月 <sep> 贪心地写（与第 20 课实验第 1 部分同一首）：每一步送进模型的位置，
    整段重算（浅）与 KV 缓存（红）。"""
    from poetry_gpt.data import EOS

    tok = default_tokenizer()
    model, _ = load_model()
    model.eval()
    prompt = condition_ids(form_of(line_length=5), "月", tok)
    out = greedy_cached(model, prompt, EOS, model.config.context_length)
    steps_n = len(out) + 1  # 最后一步选出 <eos>
    full = sum(len(prompt) + s for s in range(steps_n))
    cached = len(prompt) + steps_n - 1
    labels = [tok.tokens[i] for i in prompt + out]
    width, height, body = _draw_cache_steps(labels, len(prompt), steps_n, full, cached)
    steps = [
        f"发布模型从条件区 {' '.join(tok.tokens[i] for i in prompt)} 开始贪心地写（每步取分数最高的字），"
        f"写出“{tok.decode(out)}”，第 {steps_n - 1} 步选出 <eos> 停下。",
        "每一行是一步，格子是这一步要送进模型算的位置。整段重算每一步都把前文全部再送一遍（整行浅色加最后一格），"
        "所以是一个越来越宽的三角形。",
        f"KV 缓存：第 0 步算条件区的 {len(prompt)} 个位置，之后每步只送 1 个新字（红），前面各位置每层的 k、v 已经存在 KVCache 里。",
        f"合计：整段重算 {full} 个位置，KV 缓存 {cached} 个。前文越长，省下的越多；两种做法写出的诗相同。",
        f"前文最多 context_length = {model.config.context_length} 个位置：缓存满了就不能再往后写。",
    ]
    return Chart("KV 缓存省下了什么", _svg(width, height, "每一步整段重算与 KV 缓存要算的位置", body), steps)


# ---------- 第 21 课：温度、top-k、top-p 怎样改变一步的分布 ----------


@functools.cache
def _sampling_step():
    """与第 21 课实验同一步：发布模型、种子 26、关键词“月”、不加格式约束写的诗，第四句最后一个字之前。

    返回 (诗, 前文, 诗里实际写的字, logits [V], 汉字表)。"""
    from poetry_gpt.generate import write_one

    tok = default_tokenizer()
    model, _ = load_model()
    poem = write_one(model, tok, "月", seed=26, constrained=False)
    prefix, answer = poem.text[:-2], poem.text[-2]
    ids = condition_ids(form_of(line_length=poem.form), "月", tok) + tok.encode(prefix)
    with torch.no_grad():
        logits = model(torch.tensor([ids]))[0][0, -1]
    return poem, prefix, answer, logits, tok


def lesson21() -> Chart:
    """同一步的前 8 名：原始分布、温度 0.5 与 1.5、默认设置（温度 0.8 → top-k 40 → top-p 0.95）之后。"""
    from poetry_gpt.sampling import SAMPLING, filter_logits

    poem, prefix, answer, logits, tok = _sampling_step()
    T, K, P = SAMPLING.temperature, SAMPLING.top_k, SAMPLING.top_p
    raw = torch.softmax(logits, -1)
    final = torch.softmax(filter_logits(logits / T, top_k=K, top_p=P), -1)
    kept_k = int(torch.isfinite(filter_logits(logits / T, top_k=K)).sum())
    kept_p = int(torch.isfinite(filter_logits(logits / T, top_k=K, top_p=P)).sum())
    order = torch.topk(raw, 8).indices.tolist()
    panels = [
        ("原始（温度 1，不截断）", raw),
        ("温度 0.5：高的更高", torch.softmax(logits / 0.5, -1)),
        ("温度 1.5：拉平", torch.softmax(logits / 1.5, -1)),
        (f"默认：温度 {T:g} → top-k {K} → top-p {P:g}", final),
    ]
    pane_w, row_h = 300, 22
    width, height = 2 * pane_w + 36, 2 * (8 * row_h + 34) + 16
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>']
    scale = max(p[order].max().item() for _, p in panels)
    for i, (title, probs) in enumerate(panels):
        x, y = 12 + (i % 2) * (pane_w + 12), 8 + (i // 2) * (8 * row_h + 34)
        body.append(_text(x, y + 14, title, 13, weight="bold"))
        rows = [(tok.tokens[t], probs[t].item(), tok.tokens[t] == answer) for t in order]
        _bars(body, x, y + 22, rows, pane_w - 80, scale, row_h)
    rank = lambda probs: int((probs > probs[tok.stoi[answer]]).sum()) + 1  # noqa: E731
    a = tok.stoi[answer]
    steps = [
        f"同一步：发布模型、关键词“月”、种子 26、不加格式约束写的诗，前文“{prefix}”，下一个字诗里写的是“{answer}”（描红）。",
        f"每一格是原始分布里概率最高的 8 个字，条越长概率越大，四格的刻度相同。原始分布里“{answer}”排第 {rank(raw)}，"
        f"概率 {raw[a].item():.4f}。",
        f"温度：logits 先除以 T 再 softmax。T = 0.5 让高的更高（第 1 名 {torch.softmax(logits / 0.5, -1).max().item():.4f}），"
        f"T = 1.5 把分布拉平（第 1 名 {torch.softmax(logits / 1.5, -1).max().item():.4f}）；名次不变。",
        f"截断：温度 {T:g} 之后 top-k {K} 只留前 {kept_k} 个字，再在它们里面做 top-p {P:g}，剩 {kept_p} 个；"
        "别的字概率变成 0，留下的重新归一化，所以都比原来高。",
        f"真正抽样用的是右下这一格：“{answer}”第 {rank(final)} 名，概率 {final[a].item():.4f}（原始 {raw[a].item():.4f}）。",
    ]
    return Chart("温度与截断怎样改变一步的分布", _svg(width, height, "四种设置下前 8 个字的概率横条", body), steps)


# ---------- 第 22 课：掩码拿走了多少概率 ----------


def _forced_run(text: str, prompt: str, form: int, constraint):
    """发布模型读入条件区 prompt 与诗 text（probes.next_token_logits：逐字、KV 缓存，第 23 课实验也调用它），
    每一格记下 (这一格允许的编号 [V] bool, 模型在掩码之前的概率 [V])，最后一格是 <eos>；
    constraint 每一格之后 advance。"""
    from poetry_gpt.data import EOS

    tok = default_tokenizer()
    model, _ = load_model()
    tokens = tok.encode(text)
    logits = next_token_logits(model, condition_ids(form_of(line_length=form), prompt, tok), tokens)
    out = []
    for i, token in enumerate(tokens + [EOS]):
        out.append((constraint.allowed(), torch.softmax(logits[i], -1)))
        if token != EOS:
            constraint.advance(token)
    return out


def lesson22() -> Chart:
    """第 22 课实验第 2 部分那首诗（关键词“月”、五言、种子 0、只守格式）：每一格允许的字占模型概率多少。"""
    from poetry_gpt.constraints import Constraint
    from poetry_gpt.generate import write_one
    from poetry_gpt.settings import PLAIN

    tok = default_tokenizer()
    model, _ = load_model()
    poem = write_one(model, tok, "月", form=5, seed=0, rules=PLAIN)
    run = _forced_run(poem.text, "月", 5, Constraint(tok, 5, "月", rules=PLAIN))
    mass = [probs[mask].sum().item() for mask, probs in run]
    labels = list(poem.text) + ["<eos>"]
    ends = {i for i, ch in enumerate(labels) if ch in "，。？！"}
    taken = [1 - m for m in mass]  # 掩码拿走的概率：差别都在这里
    width, height = 640, 280
    hi = max(taken) * 1.15 or 1e-4
    X, Y, body = _plot(width, height, (-0.5, len(mass) - 0.5), (0, hi), margin=(18, 16, 46, 64))
    bar = (width - 80) / len(mass) * 0.7
    for v in (0, hi / 2, hi):
        body.append(_text(58, Y(v) + 4, f"{v:.5f}", 11, "end", MUTED))
    for i, (t, ch) in enumerate(zip(taken, labels)):
        color = "#8c2f1b" if i in ends else "#2f5d8c" if ch == "<eos>" else "#c9a27e"
        body.append(
            f'<rect x="{X(i) - bar / 2:.1f}" y="{Y(t):.1f}" width="{bar:.1f}" height="{Y(0) - Y(t):.1f}" '
            f'fill="{color}"/>'
        )
        body.append(_text(X(i), height - 30, "⏎" if ch == "<eos>" else ch, 12, "middle"))
    body.append(_text(width - 16, height - 8, "正文的每一格（红：句尾标点，蓝：<eos>）", 11, "end", MUTED))
    body.append(_text(70, 14, "1 − 允许的字占的概率（掩码拿走的）", 11, fill=MUTED))
    worst = min(range(len(mass)), key=mass.__getitem__)
    steps = [
        f"发布模型受约束写的一首五言（关键词“月”、种子 0、只守格式的解码 rules=PLAIN）：{poem.text}",
        "每一根柱子是正文的一格：掩码只许这一格该有的编号（句中只许汉字，句尾只许这一句的标点，写满四句只许 <eos>），"
        "模型在掩码之前给这些编号的概率之和几乎都是 1，所以柱子画的是剩下的那一点：1 − 允许的字占的概率，"
        "也就是掩码拿走、重新分给合格的字的概率。",
        f"平均 {sum(mass) / len(mass):.4f}，最小 {min(mass):.4f}（第 {worst} 格“{labels[worst]}”）：模型自己已经几乎只写合格的字，"
        "掩码拿走的概率很少（纵轴的最大值只有 " + f"{hi:.5f}）。",
        "句尾那几格（红）：" + "、".join(f"{mass[i]:.4f}" for i in sorted(ends)) + "——模型学会了第几个字后面该断句。",
        f"最后一格只许 <eos>，模型本来给它 {mass[-1]:.4f}。",
    ]
    return Chart("掩码拿走了多少概率", _svg(width, height, "每一格允许的字占模型概率的柱状图", body), steps)


# ---------- 第 23 课：被强制的藏头字，模型本来给它多少概率 ----------


def lesson23() -> Chart:
    """第 23 课实验那首藏头诗（春夏秋冬、五言、种子 0、只守格式）：每句第 0 格藏头字与模型最想写的字。"""
    from poetry_gpt.constraints import Constraint
    from poetry_gpt.generate import write_poems
    from poetry_gpt.settings import PLAIN

    tok = default_tokenizer()
    model, _ = load_model()
    poem = write_poems(model, tok, acrostic="春夏秋冬", form=5, seed=0, rules=PLAIN)[0]
    run = _forced_run(poem.text, poem.condition, 5, Constraint(tok, 5, "春夏秋冬", acrostic="春夏秋冬", rules=PLAIN))
    rows = []
    for line in range(4):
        _, probs = run[line * 6]
        ch = poem.text[line * 6]
        t = tok.stoi[ch]
        rows.append(
            (
                ch,
                probs[t].item(),
                int((probs > probs[t]).sum()) + 1,
                tok.tokens[int(probs.argmax())],
                probs.max().item(),
            )
        )
    width, row_h = 640, 58
    height = 30 + 4 * row_h
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>']
    scale = max(max(r[1], r[4]) for r in rows)
    body.append(_text(12, 18, "每句第 0 格：藏头字（红）与模型最想写的字（浅），掩码之前的概率", 12, fill=MUTED))
    for i, (ch, p, rank, top, top_p) in enumerate(rows):
        y = 28 + i * row_h
        body.append(_text(12, y + 22, f"第 {i} 句", 12, fill=MUTED))
        _bars(body, 56, y, [(ch, p, True), (top, top_p, False)], width - 250, scale, 24, 40, 4)
        body.append(_text(width - 12, y + 16, f"排第 {rank}", 11, "end", MUTED))
    steps = [
        f"发布模型写的藏头诗“春夏秋冬”（五言、种子 0、只守格式）：{poem.text}；条件区里的字“{poem.condition}”。",
        "每句第 0 格只许藏头字：掩码之后它的概率是 1。红条是掩码之前模型给它的概率，浅色是这一格模型最想写的字。",
        *(
            f"第 {i} 句“{ch}”：模型给它 {p:.4f}，排第 {rank}；它最想写“{top}”（{top_p:.3f}）。"
            for i, (ch, p, rank, top, top_p) in enumerate(rows)
        ),
        "红条越短，这一格越“被逼着”写；后面几格模型要接着这个字往下编，所以藏头诗比自由写的诗难读一些。",
    ]
    return Chart("被强制的藏头字", _svg(width, height, "藏头字与模型最想写的字的概率横条", body), steps)


# ---------- 第 24 课：平仄格式对照一首诗 ----------

SHAN_XING = "远上寒山石径斜，白云生处有人家。停车坐爱枫林晚，霜叶红于二月花。"
"""第 24 课实验第 2 部分逐字查的诗：杜牧《山行》。"""


def _draw_tone_grid(lines: list[str], want: tuple[str, ...], strict, rhyme) -> tuple[int, int, list[str]]:
    """一句一行、一字一格：诗里的字、表里的平仄、格式 want 要的平仄，不合的描红（strict 是 prosody.tone_report
    的结果），句尾写韵部，押韵的句尾（rhyme 是 prosody.quatrain_rhyme 的结果）描红。返回 (宽, 高, SVG 片段)。"""
    from poetry_gpt import prosody

    short = lambda ch: {"平仄": "两", "未知": "？"}.get(prosody.tone_class(ch), prosody.tone_class(ch))  # noqa: E731
    cell, left, top, row_h = 58, 70, 40, 96
    width = left + cell * len(lines[0]) + 150
    height = top + row_h * 4 + 10
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(12, 18, f"最合的格式：{strict.template}", 13, weight="bold"),
        _text(12, 34, "每格：诗里的字 / 表里查到的平仄 / 格式要的平仄；红底是不合", 11, fill=MUTED),
    ]
    for i, (line, pattern, marks) in enumerate(zip(lines, want, strict.marks)):
        y = top + i * row_h
        body.append(_text(12, y + 36, f"第 {i + 1} 句", 12, fill=MUTED))
        for j, (ch, need, mark) in enumerate(zip(line, pattern, marks)):
            x = left + j * cell
            fill = "#f1d2c7" if mark == prosody.MISMATCH else "#fffdf8"
            body.append(
                f'<rect x="{x}" y="{y + 4}" width="{cell - 6}" height="{row_h - 14}" rx="4" fill="{fill}" '
                f'stroke="#e2d8c6"/>'
            )
            body.append(_text(x + (cell - 6) / 2, y + 32, ch, 22, "middle", weight="bold"))
            body.append(_text(x + (cell - 6) / 2, y + 54, f"表 {short(ch)}", 12, "middle", MUTED))
            body.append(
                _text(
                    x + (cell - 6) / 2,
                    y + 72,
                    f"要 {need}",
                    12,
                    "middle",
                    "#8c2f1b" if mark == prosody.MISMATCH else "#2b2620",
                )
            )
        end = line[-1]
        groups = "、".join(prosody.rhyme_name(g) for g in prosody.rhyme_groups(end)) or "？"
        in_rhyme = i in (1, 3) or (i == 0 and rhyme.first_line)
        body.append(
            _text(
                left + cell * len(line) + 6,
                y + 36,
                f"{end}：{groups}",
                13,
                weight="bold" if in_rhyme else "normal",
                fill="#8c2f1b" if in_rhyme else MUTED,
            )
        )
        body.append(_text(left + cell * len(line) + 6, y + 54, "韵脚" if in_rhyme else "不押", 11, fill=MUTED))
    return width, height, body


def lesson24() -> Chart:
    """《山行》每个字：表里的平仄、最合的格式要的平仄、合不合，句尾字的韵部。"""
    from poetry_gpt import prosody

    lines = split_lines(SHAN_XING)
    strict = prosody.tone_report(SHAN_XING)
    lenient = prosody.tone_report(SHAN_XING, lenient=True)
    rhyme = prosody.quatrain_rhyme(SHAN_XING)
    want = prosody.TEMPLATES[strict.template]
    width, height, body = _draw_tone_grid(lines, want, strict, rhyme)
    wrong = [
        (i + 1, j + 1, lines[i][j])
        for i, marks in enumerate(strict.marks)
        for j, m in enumerate(marks)
        if m == prosody.MISMATCH
    ]
    names = "、".join(prosody.rhyme_name(g) for g in rhyme.groups)
    steps = [
        "诗：杜牧《山行》。每个字在 data/rhymes.json 里查出它属于平水韵的哪几个韵部，由韵部定平仄（prosody.tone_class）；"
        "“两”是平仄两读。",
        f"对格式：七言绝句有四种平仄格式，prosody.tone_report 逐字对照，取最合的一种：{strict.template}。"
        f"每字都论时 {strict.checked} 个字合 {strict.matched} 个，得分 {strict.score:.3f}。",
        "红底的格子不合："
        + "、".join(f"第 {i} 句第 {j} 字“{ch}”" for i, j, ch in wrong)
        + ("——都在第一、三、五字上。" if all(j in (1, 3, 5) for _, j, _ in wrong) else "。"),
        f"宽式“一三五不论”：这几个位置不计分，得分 {lenient.score:.3f}。",
        f"押韵：第二、四句句尾“{lines[1][-1]}”“{lines[3][-1]}”共有韵部 {names}，押韵"
        + (f"；第一句“{lines[0][-1]}”也在这里，首句入韵。" if rhyme.first_line else "。")
        + f"第三句“{lines[2][-1]}”照例不押。",
    ]
    return Chart("平仄格式对照《山行》", _svg(width, height, "山行每个字的平仄与格式对照", body), steps)
