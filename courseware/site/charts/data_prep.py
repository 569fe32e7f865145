"""第 04–07 课（数据）的插图：清洗记录的七步、汉字表、样本与损失掩码、二元模型的一行。"""

from __future__ import annotations

import torch

from poetry_gpt.data import Tokenizer, default_tokenizer, encode_sample, load_poems

from .draw import MUTED, Chart, _bars, _svg, _text

# ---------- 第 04 课：一条记录要过的关 ----------

_CLEAN_STEPS = [
    ("① 拼起来、去空白", ("空记录",)),
    ("② 繁转简", ()),
    ("③ 统一标点", ()),
    ("④ 逐字检查", ("有缺字", "有括注", "有拉丁字母或数字", "有其他符号")),
    ("⑤ 按 ，。？！ 切句", ("结尾缺少标点",)),
    ("⑥ 数句子", ("不是四句",)),
    ("⑦ 量句长", ("句子长短不一", "不是五言或七言")),
]
"""clean_record 的七步（第 04 课图解的顺序），每一步可能给出的 BadRecord 原因。"""

_STEP_OF = {reason: i for i, (_, reasons) in enumerate(_CLEAN_STEPS) for reason in reasons}
"""BadRecord 的原因 → 它在 _CLEAN_STEPS 的第几步。"""


def _sort_records(records: list[dict]) -> tuple[list[tuple[dict, dict]], dict[int, dict[str, list[str]]]]:
    """每条原始记录交给 data.clean_record。返回 (收入的 (原始记录, 清洗后的诗)，
    第几步 → {原因: 在这一步被剔除的标题（繁转简后）})。

    Raises:
        ValueError: clean_record 给出了 _CLEAN_STEPS 里没有的原因。
    """
    from poetry_gpt.data import BadRecord, clean_record, to_simplified

    dropped: dict[int, dict[str, list[str]]] = {i: {} for i in range(len(_CLEAN_STEPS))}
    kept = []
    for raw in records:
        title = to_simplified(raw["title"])
        try:
            kept.append((raw, clean_record(raw)))
        except BadRecord as e:
            if e.reason not in _STEP_OF:
                raise ValueError(f"clean_record 给出了图里没有的原因“{e.reason}”：请更新 _CLEAN_STEPS") from e
            dropped[_STEP_OF[e.reason]].setdefault(e.reason, []).append(title)
    return kept, dropped


def _edits(kept: list[tuple[dict, dict]]) -> tuple[list[str], list[str]]:
    """收入的记录里，第 ② 步（繁转简）、第 ③ 步（统一标点）改了什么：各是按出现先后、不重复的“原→新”。"""
    from poetry_gpt.data import to_simplified

    simplified, punctuation = [], []
    for raw, poem in kept:
        before = "".join("".join(raw["paragraphs"]).split())
        middle = to_simplified(before)
        for a, b in zip(before, middle):
            if a != b and f"{a}→{b}" not in simplified:
                simplified.append(f"{a}→{b}")
        for a, b in zip(middle, poem["text"]):
            if a != b and f"{a}→{b}" not in punctuation:
                punctuation.append(f"{a}→{b}")
    return simplified, punctuation


def _draw_clean_steps(
    n_records: int, kept: list[tuple[dict, dict]], dropped: dict[int, dict[str, list[str]]], notes: dict[int, str]
) -> tuple[int, int, list[str]]:
    """n_records 条记录逐步通过 _CLEAN_STEPS 的方块图；notes 是没有剔除记录的那几步旁边的说明。
    返回 (宽, 高, SVG 片段)。"""
    width, square, top, line_h = 780, 14, 40, 20
    x_label, x_squares, x_note = 12, 170, 170 + n_records * (square + 2) + 36
    rows = [max(1, len(dropped[i])) for i in range(len(_CLEAN_STEPS))]
    height = top + sum(rows) * line_h + len(rows) * 8 + 56
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            20,
            f"lessons/04/bad_records.json 的 {n_records} 条原始记录，依次过 clean_record 的七步；"
            "一个方块一条记录，红框是在这一步被剔除的",
            12,
            fill=MUTED,
        ),
    ]
    left, y = n_records, top
    for i, (label, _) in enumerate(_CLEAN_STEPS):
        out = sum(len(titles) for titles in dropped[i].values())
        body.append(_text(x_label, y + 15, label, 13, weight="bold"))
        for j in range(left):
            leaving = j >= left - out
            body.append(
                f'<rect x="{x_squares + j * (square + 2)}" y="{y + 3}" width="{square}" height="{square}" '
                f'rx="2" fill="{"#fffdf8" if leaving else "#c9a27e"}" '
                f'stroke="{"#8c2f1b" if leaving else "#c9a27e"}" stroke-width="1.5"/>'
            )
        body.append(_text(x_squares + left * (square + 2) + 2, y + 15, str(left - out), 11, fill=MUTED))
        if out:
            for k, (reason, titles) in enumerate(dropped[i].items()):
                body.append(
                    _text(
                        x_note,
                        y + 15 + k * line_h,
                        f"{reason} −{len(titles)}：" + "、".join(t[:8] for t in titles),
                        12,
                        fill="#8c2f1b",
                    )
                )
        else:
            body.append(_text(x_note, y + 15, notes.get(i, "没有记录在这一步被剔除"), 12, fill=MUTED))
        left -= out
        y += rows[i] * line_h + 8
    body.append(f'<line x1="12" y1="{y + 2}" x2="{width - 12}" y2="{y + 2}" stroke="#d9cfbd"/>')
    body.append(_text(x_label, y + 24, f"收入 {len(kept)} 条", 13, weight="bold", fill="#8c2f1b"))
    body.append(_text(x_squares, y + 24, "、".join(f"《{p['title']}》{p['form']}" for _, p in kept), 12))
    return width, height, body


def lesson04() -> Chart:
    """第 04 课的 14 条原始记录（lessons/04/bad_records.json）逐条交给 data.clean_record：
    每一步还剩几条、在哪一步因为什么原因被剔除，繁转简与统一标点改了哪些字。

    Raises:
        ValueError: clean_record 给出了 _CLEAN_STEPS 里没有的原因（图就对不上 clean_record 了）。
    """
    from poetry_gpt.common import ROOT, read_json

    records = read_json(ROOT / "lessons" / "04" / "bad_records.json")
    kept, dropped = _sort_records(records)
    simplified, punctuation = _edits(kept)
    notes = {
        1: "，".join(simplified[:6]) + " …",
        2: "，".join(punctuation) + "（半角标点换成全角，分号、冒号、顿号换成逗号）",
    }
    width, height, body = _draw_clean_steps(len(records), kept, dropped, notes)
    reasons = [(reason, len(titles)) for i in dropped for reason, titles in dropped[i].items()]
    check = next(i for i, (label, _) in enumerate(_CLEAN_STEPS) if label.startswith("④"))
    steps = [
        f"lessons/04/bad_records.json 是从原始数据里原样摘出的 {len(records)} 条记录，每条交给 "
        "poetry_gpt.data.clean_record；一个方块代表一条记录，一行是一步，红框是在这一步被剔除的。",
        f"① 把 paragraphs 拼起来、去掉空白：{'、'.join(dropped[0].get('空记录', [])) or '没有'}什么都不剩，是“空记录”，"
        f"剩 {len(records) - len(dropped[0].get('空记录', []))} 条。",
        f"② 繁转简与 ③ 统一标点只改字、不剔除：通过的几首里 {'，'.join(simplified[:6])} 等，标点 {'，'.join(punctuation)}。",
        "④ 逐字检查剔除的最多："
        + "，".join(f"{reason} {n} 条" for reason, n in reasons if _STEP_OF[reason] == check)
        + "。",
        "⑤ 到 ⑦ 看句子：" + "，".join(f"{reason} {n} 条" for reason, n in reasons if _STEP_OF[reason] > check) + "。",
        f"最后收入 {len(kept)} 条："
        + "、".join(f"《{p['title']}》" for _, p in kept)
        + "。收入的诗还要按正文去重，才进语料（实验第 4 部分）。",
    ]
    return Chart("一条记录要过的关", _svg(width, height, "十四条原始记录逐步通过或被剔除的示意图", body), steps)


# ---------- 第 05 课：汉字表，特殊标记在前 ----------


def lesson05() -> Chart:
    """发布的汉字表 data/vocab.json：前 13 个编号与最后一个，训练集里的出现次数（Tokenizer.counts），
    再编码一句、解码回来。"""
    from poetry_gpt.data import SPECIAL

    tok = default_tokenizer()
    shown = list(range(len(SPECIAL) + 6)) + [len(tok) - 1]
    width, row_h, top = 640, 24, 34
    text = "春眠不觉晓，"
    ids = tok.encode(text)
    height = top + row_h * (len(shown) + 1) + 70
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(12, 20, f"汉字表共 V = {len(tok)} 个编号；横条是训练集里的出现次数", 12, fill=MUTED),
    ]
    scale = max(tok.counts)
    y = top
    for k, i in enumerate(shown):
        if k == len(shown) - 1:  # 中间省略的一行
            body.append(_text(60, y + 16, "⋮", 14, "end", MUTED))
            y += row_h
        special = i < len(SPECIAL)
        body.append(_text(48, y + 16, str(i), 12, "end", MUTED))
        body.append(
            f'<rect x="58" y="{y + 2}" width="64" height="{row_h - 4}" rx="3" '
            f'fill="{"#e3ecf5" if special else "#fffdf8"}" stroke="#d9cfbd"/>'
        )
        body.append(
            _text(
                90,
                y + 17,
                tok.tokens[i],
                13,
                "middle",
                "#2f5d8c" if special else "#2b2620",
                weight="normal" if special else "bold",
            )
        )
        w = (width - 260) * tok.counts[i] / scale
        if tok.counts[i]:
            body.append(
                f'<rect x="132" y="{y + 5}" width="{max(w, 1.5):.1f}" height="{row_h - 10}" rx="2" fill="#c9a27e"/>'
            )
        body.append(
            _text(138 + max(w, 1.5), y + 16, str(tok.counts[i]) if not special else "特殊标记：0", 11, fill=MUTED)
        )
        y += row_h
    y += 14
    body.append(_text(12, y + 14, f"编码 {' '.join(text)} → {' '.join(map(str, ids))}", 14, weight="bold"))
    body.append(_text(12, y + 36, f"解码 {' '.join(map(str, ids))} → {tok.decode(ids)}", 14))
    steps = [
        f"表分两段：前 {len(SPECIAL)} 个编号（蓝底）永远是特殊标记 {' '.join(SPECIAL)}，顺序由 SPECIAL 固定，"
        f"在训练集里的次数记作 0；从编号 {len(SPECIAL)} 开始是真正的字。",
        f"字按训练集里的出现次数从多到少排：“{tok.tokens[7]}” {tok.counts[7]} 次、“{tok.tokens[8]}” {tok.counts[8]} 次，"
        f"然后是 {'、'.join(f'“{tok.tokens[i]}”' for i in range(9, 13))}。次数相同的按码位排，表每次都一样。",
        f"最后一个编号 {len(tok) - 1} 是“{tok.tokens[-1]}”，只出现 {tok.counts[-1]} 次：出现不到 min_count = {tok.min_count} 次的字不进表。",
        f"编码查 stoi（字 → 编号）：{text} → {ids}；解码查 tokens（编号 → 字），回到原文。",
        f"表里没有的字编码成 {tok.stoi['<unk>']} = <unk>，解码回来就找不回原字了。",
    ]
    return Chart("汉字表：特殊标记在前，字按次数排", _svg(width, height, "汉字表前几个编号与出现次数", body), steps)


# ---------- 第 06 课：一条样本的排布与损失掩码 ----------


def _draw_sample(tok: Tokenizer, x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor) -> tuple[int, int, list[str]]:
    """一条样本的格子图：x、y、mask 是 make_batch 的输入、目标与损失掩码（各 [1, T]），每行 14 格，
    计入损失的目标描红。返回 (宽, 高, SVG 片段)。"""
    T = x.shape[1]
    per_row, cell_w, band = 14, 42, 96
    width = 56 + per_row * cell_w + 12
    bands = (T + per_row - 1) // per_row
    height = 30 + bands * band + 8
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(12, 18, "每一格：上面是输入（模型读的），下面是目标（要预测的下一格）；红框计入损失", 12, fill=MUTED),
    ]
    for t in range(T):
        b, k = divmod(t, per_row)
        x0, y0 = 56 + k * cell_w, 30 + b * band
        if k == 0:
            for label, dy in (("位置", 12), ("输入", 34), ("目标", 70)):
                body.append(_text(12, y0 + dy, label, 11, fill=MUTED))
        scored = bool(mask[0, t])
        body.append(_text(x0 + (cell_w - 4) / 2, y0 + 12, str(t), 10, "middle", MUTED))
        body.append(
            f'<rect x="{x0}" y="{y0 + 18}" width="{cell_w - 4}" height="24" rx="3" fill="#fffdf8" stroke="#d9cfbd"/>'
        )
        name = tok.tokens[x[0, t]]
        body.append(_text(x0 + (cell_w - 4) / 2, y0 + 35, name, 11 if len(name) > 1 else 14, "middle"))
        body.append(_text(x0 + (cell_w - 4) / 2, y0 + 52, "↓", 11, "middle", MUTED))
        body.append(
            f'<rect x="{x0}" y="{y0 + 56}" width="{cell_w - 4}" height="24" rx="3" '
            f'fill="{"#f1d2c7" if scored else "#efe9dd"}" '
            f'stroke="{"#8c2f1b" if scored else "#d9cfbd"}" stroke-width="{1.5 if scored else 1}"/>'
        )
        name = tok.tokens[y[0, t]]
        body.append(
            _text(
                x0 + (cell_w - 4) / 2,
                y0 + 73,
                name,
                11 if len(name) > 1 else 14,
                "middle",
                "#2b2620" if scored else MUTED,
            )
        )
    return width, height, body


def lesson06() -> Chart:
    """孟浩然《春晓》的样本（encode_sample、make_batch，与第 06 课实验相同）：每一格的输入、目标、是否计入损失。"""
    from poetry_gpt.data import keywords_for, make_batch, poem_body

    tok = default_tokenizer()
    poem = next(p for p in load_poems() if p["title"] == "春晓" and p["author"] == "孟浩然")
    ids = encode_sample(poem, tok)
    x, y, mask = make_batch([ids])  # 各 [1, T]
    T = x.shape[1]
    width, height, body = _draw_sample(tok, x, y, mask)
    first = int(mask[0].nonzero()[0])
    n_scored = int(mask.sum())
    keys = "".join(keywords_for(poem, tok))
    steps = [
        f"孟浩然《春晓》排成一条样本（encode_sample）：<bos>、体裁 <5>、关键词“{keys}”、<sep>、正文 {len(poem_body(poem['text']))} 个字和 "
        f"{len(poem['text']) - len(poem_body(poem['text']))} 个标点、<eos>，共 {len(ids)} 个编号。",
        f"make_batch 把它错开一格：输入是前 {T} 个，目标是后 {T} 个，第 t 格读输入 t、预测目标 t。",
        f"前 {first} 格的目标是条件区（体裁、关键词、<sep>）：条件是给模型的提示，不要求它猜，所以不计入损失（灰）。",
        f"从第 {first} 格（输入 <sep>，目标正文第一个字“{tok.tokens[y[0, first]]}”）起到最后一格（目标 <eos>）都计入损失，"
        f"共 {n_scored} 格（红框）。",
        "损失掩码与样本一起算出来（loss_mask_for）：训练、二元基线与评估都只在这些格子上打分。",
    ]
    return Chart(
        "一条样本：条件区、正文与损失掩码", _svg(width, height, "春晓样本每一格的输入、目标与损失掩码", body), steps
    )


# ---------- 第 07 课：“明”的下一个字 ----------


def lesson07() -> Chart:
    """训练集里“明”后面跟过的字：计数与加 k 平滑后的 P(下一个 | 明)，前 8 名。

    BigramModel.fit 要把整个训练集排成样本，约 6 秒，不适合每次构建网站都做；“明”这一行的计数
    等于训练诗正文里“明”后面紧跟的字（正文之内相邻的每一对都计入损失，“明”从不在正文的最后一格），
    所以在正文里直接数。与实验的表对照见 tests/courseware/test_site.py。"""
    from collections import Counter

    from poetry_gpt.bigram import DEFAULT_K
    from poetry_gpt.data import UNK

    tok = default_tokenizer()
    prev = "明"
    follow = Counter(
        tok.tokens[tok.stoi.get(text[i + 1], UNK)]
        for p in load_poems("train")
        for text in (p["text"],)
        for i in range(len(text) - 1)
        if text[i] == prev
    )
    n, V = sum(follow.values()), len(tok)
    prob = lambda c: (c + DEFAULT_K) / (n + DEFAULT_K * V)  # noqa: E731
    top = follow.most_common(8)
    width, row_h = 640, 26
    height = 44 + row_h * (len(top) + 1) + 12
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(
            12,
            20,
            f"训练集里“{prev}”后面一共跟过 {n} 次；横条是 P(下一个 | {prev}) = (c + k) / (n + k·V)，k = {DEFAULT_K:g}",
            12,
            fill=MUTED,
        ),
    ]
    scale = prob(top[0][1])
    rows = [(ch, prob(c), ch in "，。？！") for ch, c in top] + [("鲸", prob(follow["鲸"]), False)]
    _bars(body, 12, 34, rows, width - 220, scale, row_h, 40, 4)
    for i, (ch, c) in enumerate(top + [("鲸", follow["鲸"])]):
        body.append(_text(width - 12, 34 + i * row_h + 15, f"c = {c}", 11, "end", MUTED))
    steps = [
        f"在训练集的每首诗里，把相邻两个字记成一对 (前一个, 下一个)。“{prev}”当过 {n} 次前一个字，这是计数表里“{prev}”那一行的合计 n。",
        "横条是这一行里次数最多的 8 个下一个字（红：标点），右边是次数 c："
        + "、".join(f"“{ch}” {c}" for ch, c in top[:4])
        + "……",
        f"加 k 平滑再归一：P(。| {prev}) = ({follow['。']} + {DEFAULT_K:g}) / ({n} + {DEFAULT_K:g} × {V}) = "
        f"{prob(follow['。']):.4f}。",
        f"最后一行“鲸”：“{prev}鲸”在训练集里一次也没出现，平滑后仍有 {prob(0):.8f}——不为 0，"
        "val 里遇到没见过的一对时交叉熵才不会变成无穷大。",
        "二元模型只看前一个字：不论前面写了什么，只要上一个字是“明”，下一个字的分布就是这一行。",
    ]
    return Chart(f"“{prev}”的下一个字", _svg(width, height, f"{prev}后面各字的概率横条", body), steps)
