"""第 01–03 课（起步）的插图：一首诗走过模型的各段、一批诗的形状、字频的覆盖曲线。"""

from __future__ import annotations

import functools

import torch

from poetry_gpt.common import COURSE_SEED
from poetry_gpt.data import Tokenizer, condition_ids, default_tokenizer, form_of, load_poems, split_lines
from poetry_gpt.model import ModelConfig, PoetryGPT

from .draw import MUTED, Chart, _dot, _plot, _polyline, _svg, _text

# ---------- 第 01 课：从一个“月”字到下一个字 ----------


def _walk_the_pipeline(model: PoetryGPT, ids: torch.Tensor) -> tuple[list[int], list[int], list[int], torch.Tensor]:
    """ids [B, T] 像第 01 课实验那样一段一段送进模型。返回 (查表加位置后的形状 [B, T, C]、穿过全部 Block 后的形状、
    logits 的形状 [B, T, V]、最后一个位置的概率 [V])。"""
    with torch.no_grad():
        hidden = model.characters(ids) + model.positions(torch.arange(ids.shape[1]))  # [B, T, C]
        first = list(hidden.shape)
        for block in model.blocks:
            hidden = block(hidden)
        after = list(hidden.shape)
        logits = model.head(model.norm(hidden))  # [B, T, V]
        probs = torch.softmax(logits[0, -1], dim=-1)  # [V]
    return first, after, list(logits.shape), probs


def _stage_boxes(width: int, heading: str, stages: list[tuple[str, str, str, str]]) -> tuple[int, list[str]]:
    """从上往下一段一框：stages 是 (名字, 内容, 形状, 通往下一段的说明)，最后一框涂红。返回 (高度, body)。"""
    box_h, gap, top = 34, 30, 34
    height = top + len(stages) * box_h + (len(stages) - 1) * gap + 14
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>', _text(12, 20, heading, 12, fill=MUTED)]
    for i, (name, content, shape, arrow) in enumerate(stages):
        y = top + i * (box_h + gap)
        last = i == len(stages) - 1
        body.append(
            f'<rect x="12" y="{y}" width="{width - 24}" height="{box_h}" rx="4" '
            f'fill="{"#f1d2c7" if last else "#fffdf8"}" stroke="#d9cfbd"/>'
        )
        body.append(_text(24, y + 22, name, 13, weight="bold"))
        body.append(_text(160, y + 22, content, 13 if last else 12, weight="bold" if last else "normal"))
        body.append(_text(width - 24, y + 22, shape, 13, "end", "#8c2f1b", "bold"))
        if arrow:
            body.append(_text(60, y + box_h + gap / 2 + 5, "↓", 14, "middle", MUTED))
            body.append(_text(76, y + box_h + gap / 2 + 5, arrow, 11, fill=MUTED))
    return height, body


def _pipeline_stages(
    tok: Tokenizer,
    condition: list[int],
    prefix: str,
    answer: str,
    ids: torch.Tensor,
    cfg: ModelConfig,
    walked: tuple[list[int], list[int], list[int], torch.Tensor],
) -> list[tuple[str, str, str, str]]:
    """第 01 课图里从上往下的七框（给 _stage_boxes）：ids [B, T] 是条件区 condition 加上已写的正文 prefix，
    walked 是 _walk_the_pipeline 的结果，answer 是诗里真正的下一个字。"""
    first, after, logits_shape, probs = walked
    B, T = ids.shape
    return [
        (
            "条件区 + 已写的正文",
            " ".join(tok.tokens[i] for i in condition) + f" {prefix[:7]}…{prefix[-4:]}",
            f"文本，{T} 个标记",
            "汉字表 Tokenizer（第 05、06 课）",
        ),
        ("编号 ids", str(ids[0, :8].tolist())[:-1] + ", …]", str([B, T]), "查字向量表，加位置向量（第 08、09 课）"),
        (
            "向量 hidden",
            f"每个位置一行 C = {cfg.width} 个数",
            str(first),
            f"{cfg.n_layers} 层 Block：注意力 + 前馈网络（第 10–13 课）",
        ),
        ("向量 hidden", "形状不变，已汇总了前文", str(after), "最后的层归一化 + 输出层（第 14 课）"),
        (
            "分数 logits",
            f"每个位置给 V = {cfg.vocab_size} 个标记各打一分",
            str(logits_shape),
            "取最后一个位置，softmax（第 20 课）",
        ),
        (
            "概率 probs",
            f"V 个数，加起来等于 {probs.sum().item():.4f}",
            str(list(probs.shape)),
            "按概率抽一个字（第 21–24 课：温度、截断、格式、诗律）",
        ),
        ("下一个字", f"诗里写的是“{answer}”", "", ""),
    ]


def lesson01() -> Chart:
    """第 01 课实验的那条流水线，换成语料里的一首真诗：张继《枫桥夜泊》、关键词“月”，前文是条件区加上
    最后一个汉字之前的正文（实验的取法）。每一段的形状是把它送进一个 base 预设尺寸的新建模型、
    像实验那样一段一段算出来的（没有读发布的模型：形状只由尺寸决定，与训练无关）。"""
    from poetry_gpt.train_config import PRESETS

    tok = default_tokenizer()
    poem = next(p for p in load_poems() if p["title"] == "枫桥夜泊" and p["author"] == "张继")
    form = form_of(name=poem["form"])
    keyword = "月"
    cut = len(poem["text"]) - 2  # 与实验一样：最后两个字符是韵脚和“。”
    prefix, answer = poem["text"][:cut], poem["text"][cut]
    condition = condition_ids(form, keyword, tok)
    ids = torch.tensor([condition + tok.encode(prefix)])  # [B, T]
    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)
        model = PoetryGPT(ModelConfig(vocab_size=len(tok), **PRESETS["base"].model)).eval()
    cfg = model.config
    B, T = ids.shape
    walked = _walk_the_pipeline(model, ids)
    first, after, logits_shape, probs = walked
    p_answer = probs[tok.stoi[answer]].item()
    shown = [tok.tokens[i] for i in ids[0, :8].tolist()]
    stages = _pipeline_stages(tok, condition, prefix, answer, ids, cfg, walked)
    width = 680
    height, body = _stage_boxes(
        width,
        f"{poem['author']}《{poem['title']}》，关键词“{keyword}”：看着前文，给下一个字打分"
        f"（模型取 base 预设的尺寸：{cfg.n_layers} 层、C = {cfg.width}、{cfg.n_heads} 个头）",
        stages,
    )
    steps = [
        f"前文 = 条件区（{' '.join(tok.tokens[i] for i in condition)}）+ 已经写出的正文。这里用语料里的真诗"
        f"{poem['author']}《{poem['title']}》，与实验的取法一样，正文写到最后一个汉字之前，要猜的是韵脚“{answer}”。",
        f"汉字表把每个标记换成编号：前 8 个是 {' '.join(shown)} → {ids[0, :8].tolist()}。"
        f"一条序列、{T} 个位置，ids 的形状 [B, T] = {[B, T]}。",
        f"每个编号查出一行 C = {cfg.width} 个数，再加上位置表的一行：{first}。"
        f"穿过 {cfg.n_layers} 层 Block 后形状不变：{after}。",
        f"输出层给每个位置打 V = {cfg.vocab_size} 个分数：logits {logits_shape}。只有最后一个位置在预测下一个字，"
        f"softmax 把它的 {cfg.vocab_size} 个分数变成加起来等于 1 的概率。",
        f"这里的模型刚刚新建、还没训练，给“{answer}”的概率只有 {p_answer:.6f}，和 1/V = {1 / cfg.vocab_size:.6f} "
        "差不多：每个字都差不多。训练（第 15–19 课）就是把诗里真正写了的字的概率推高；"
        "实验用随课程发布的、训练好的模型走同一条路。",
        "写诗时按概率抽一个字接到前文后面，再从头走一遍，直到写满四句。",
    ]
    return Chart(
        "从一个“月”字到下一个字", _svg(width, height, "一首诗的前文经过模型各段变成下一个字的概率", body), steps
    )


# ---------- 第 02 课：一批诗的三种形状 ----------


def lesson02() -> Chart:
    """与第 02 课实验同一首《静夜思》：编号张量 [B, T] 的每一格，和它往下变成的 [B, T, C]、[B, T, V]。"""
    tok = default_tokenizer()
    poem = next(p for p in load_poems() if p["title"] == "静夜思" and p["author"] == "李白")
    lines = split_lines(poem["text"])
    ids = torch.tensor([tok.encode(line) for line in lines])  # [B, T]
    B, T = ids.shape
    C, V = 8, len(tok)  # C 是实验里建的小表的宽度
    cell_w, cell_h, left, top = 62, 46, 64, 40
    width = left + T * cell_w + 200
    grid_h = B * cell_h
    stages = [
        ("x = characters(ids)", [B, T, C], f"每格查出 C = {C} 个数"),
        (f"h = x + pos（pos [{T}, {C}] 广播到每一句）", [B, T, C], "形状不变"),
        ("logits = h @ characters.weight.T", [B, T, V], "每格 V 个分数"),
        ("logits.reshape(B * T, V)", [B * T, V], "交给 cross_entropy"),
    ]
    height = top + grid_h + 34 + len(stages) * 44 + 10
    body = [
        f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
        _text(12, 20, f"ids [B, T] = [{B}, {T}]：一行一句，一格一个字的编号", 13, weight="bold"),
    ]
    for b in range(B):
        y = top + b * cell_h
        body.append(_text(left - 10, y + 28, f"b={b}", 11, "end", MUTED))
        for t in range(T):
            x = left + t * cell_w
            first = t == 0
            body.append(
                f'<rect x="{x}" y="{y}" width="{cell_w - 4}" height="{cell_h - 4}" rx="3" '
                f'fill="{"#f1d2c7" if first else "#fffdf8"}" stroke="#d9cfbd"/>'
            )
            body.append(_text(x + (cell_w - 4) / 2, y + 19, lines[b][t], 16, "middle", weight="bold"))
            body.append(_text(x + (cell_w - 4) / 2, y + 36, str(ids[b, t].item()), 11, "middle", MUTED))
        body.append(_text(left + T * cell_w + 6, y + 28, f"← ids[{b}]，形状 [{T}]", 11, fill=MUTED))
    body.append(
        _text(left, top + grid_h + 14, f"红底一列：ids[:, 0] = {tok.decode(ids[:, 0])}，形状 [{B}]", 11, fill="#8c2f1b")
    )
    for i, (label, shape, note) in enumerate(stages):
        y = top + grid_h + 34 + i * 44
        body.append(_text(left, y + 8, "↓ " + label, 12, fill=MUTED))
        body.append(_text(left, y + 28, f"{shape}", 15, weight="bold"))
        body.append(_text(left + 150, y + 28, note, 12, fill=MUTED))
    steps = [
        f"最上面是编号张量 ids：{B} 行是李白《静夜思》的 {B} 句，{T} 列是每句的 {T} 个位置，每格上面是字、下面是它在汉字表里的编号"
        f"（“{lines[0][0]}”是 {ids[0, 0].item()}）。形状 [B, T] = {list(ids.shape)}。",
        f"取一行 ids[0] 得到第一句，形状 [{T}]；取一列 ids[:, 0]（红底）得到每句的第一个字“{tok.decode(ids[:, 0])}”，形状 [{B}]；"
        f"取一格 ids[3, 4] 是 {ids[3, 4].item()} → {tok.decode([ids[3, 4]])}，形状 []。",
        f"characters(ids) 把每格换成一行 C = {C} 个数：[B, T] 变成 [B, T, C] = {[B, T, C]}。",
        f"加位置表 pos [{T}, {C}]：从右往左对齐，缺的 B 那一维当成 1，每一句加的是同一张表，形状不变。",
        f"乘回汉字表（[{C}, {V}]）得到 logits [B, T, V] = {[B, T, V]}；摊平成 [{B * T}, {V}] 交给 cross_entropy，"
        f"第 b×T+t 行就是 logits[b, t]。",
    ]
    return Chart("一批诗的三种形状", _svg(width, height, "静夜思的编号张量与它的形状变化", body), steps)


# ---------- 第 03 课：少数常用字撑起大部分正文 ----------


@functools.cache
def _character_counts():
    """全部诗的正文汉字计数（poem_body 去掉标点），与第 03 课实验同样地数。"""
    from collections import Counter

    from poetry_gpt.data import poem_body

    chars: Counter = Counter()
    for p in load_poems():
        chars.update(poem_body(p["text"]))
    return chars


def lesson03() -> Chart:
    """按次数排好的前 n 个字覆盖正文的比例（实验的覆盖曲线），标出 50%、90%、99%。"""
    import itertools

    poems = load_poems()
    chars = _character_counts()
    total = sum(chars.values())
    ranked = chars.most_common()
    covered = list(itertools.accumulate(n for _, n in ranked))
    need = {s: next(i for i, c in enumerate(covered, start=1) if c >= s * total) for s in (0.5, 0.9, 0.99)}
    width, height = 640, 300
    X, Y, body = _plot(width, height, (0, len(ranked)), (0, 1), margin=(24, 16, 40, 56))
    for v in (0, 0.5, 0.9, 0.99):
        body.append(_text(48, Y(v) + 4, f"{v:.0%}", 11, "end", MUTED))
    for n in range(0, len(ranked) + 1, 2000):
        body.append(_text(X(n), height - 22, str(n), 11, "middle", MUTED))
    points = [(0, 0)] + [(n, covered[n - 1] / total) for n in range(1, len(covered) + 1, 20)] + [(len(covered), 1.0)]
    body.append(_polyline(points, X, Y, "#8c2f1b"))
    for i, (share, n) in enumerate(need.items()):
        body.append(
            f'<line x1="{X(n):.1f}" y1="{Y(share):.1f}" x2="{X(n):.1f}" y2="{Y(0):.1f}" stroke="#c9a27e" '
            f'stroke-dasharray="3 3"/>'
        )
        body.append(_dot(X(n), Y(share)))
        body.append(_text(X(n) + 8, Y(share) + 16 + 4 * i, f"前 {n} 个字 → {share:.0%}", 12))
    body.append(_text(width - 16, height - 6, "按次数排好的前 n 个字", 11, "end", MUTED))
    body.append(_text(60, 14, "覆盖正文的比例", 11, fill=MUTED))
    forms = {f: sum(p["form"] == f for p in poems) for f in ("五言绝句", "七言绝句")}
    top = "".join(c for c, _ in ranked[:8])
    steps = [
        f"语料 data/poems.jsonl 共 {len(poems)} 首（五言绝句 {forms['五言绝句']}、七言绝句 {forms['七言绝句']}），"
        f"正文汉字 {total} 个，不同的字 {len(ranked)} 个。",
        f"把不同的字按出现次数从多到少排好：{top}……第 1 名“{ranked[0][0]}”出现 {ranked[0][1]} 次。",
        f"横轴是前 n 个字，纵轴是它们合起来占正文的比例：前 {need[0.5]} 个字就占了一半，"
        f"前 {need[0.9]} 个占 90%，前 {need[0.99]} 个占 99%。",
        f"曲线开头很陡、后面很平：剩下的 {len(ranked) - need[0.99]} 个字加起来只有 1%，很多只出现过一两次。"
        "第 05 课建汉字表、处理表外字，要面对的就是这条长尾。",
    ]
    return Chart("覆盖曲线：少数常用字撑起大部分正文", _svg(width, height, "前 n 个字覆盖正文比例的曲线", body), steps)
