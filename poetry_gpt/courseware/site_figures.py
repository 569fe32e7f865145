"""课程网站的插图：在构建网站时用仓库里的代码现算，画成内嵌 SVG，并配一段逐步的文字解读。

每张图的数和实验打印的数出自同一段计算：
- 第 01 课：张继《枫桥夜泊》按实验的取法（条件区加上最后一个汉字之前的正文）送进 base 预设尺寸的新建模型，每一段的形状；
- 第 02 课：李白《静夜思》四句的编号张量 [B, T] 与它往下的形状；
- 第 03 课：全部诗正文的字频，按次数排好的前 n 个字覆盖正文的比例；
- 第 04 课：lessons/04/bad_records.json 的 14 条原始记录逐条交给 data.clean_record，每一步剔除几条、为什么；
- 第 05 课：发布的汉字表的前 13 个编号与最后一个，Tokenizer.counts 记下的训练集次数；
- 第 06 课：孟浩然《春晓》的样本（encode_sample、make_batch）每一格的输入、目标与损失掩码；
- 第 07 课：训练集里“明”后面跟过的字，加 k 平滑（bigram.DEFAULT_K）后的概率；
- 第 08 课：与第 08 课实验同样的种子与新建模型，“春风月”的 one-hot 行乘字向量表；
- 第 09 课：与 lessons/09/experiment.py 同样的种子、汉字表和新建模型，“春风月”的字向量、位置行与它们的和；
- 第 10、11 课：随课程发布的模型 data/model.pt 第 0 层的注意力权重（poetry_gpt.probes.attention_weights，
  两课的实验也调用它）；
- 第 12 课：torch 的 F.gelu 与 F.relu 在 [-3, 3] 上的曲线，点出实验表里的 x；
- 第 13 课：与实验同样的种子、新建模型与 8 首 val 诗，残差流穿过各个 Block 的标准差、第一层的修改有多大；
- 第 14 课：默认配置新建模型的 parameter_counts()，与实验的参数表同一个函数；
- 第 15 课：发布模型读 val 第一首诗，实验里那一格的概率与 −ln p(答案)；
- 第 16 课：train.learning_rate 按 base 预设算的学习率日程；
- 第 17 课：tiny 预设第 0 步（batch_indices、scored_loss、clip_grad_norm_）与实验第 3 部分第 0 步被裁剪的总范数；
- 第 18 课：实验的 16 步小训练，不中断与第 8 步停下再续训（train(stop_at=8)、resume=True）的损失，
  少放回优化器或随机数状态时的岔开，第 8 步存档里各部分的大小；
- 第 19 课：发布模型存档里记下的训练与验证损失（metrics.loss_curves）；
- 第 20 课：发布模型从 <bos> <5> 月 <sep> 贪心地写，每一步整段重算与 KV 缓存要送进模型的位置；
- 第 21 课：发布模型种子 26 那首诗的同一步，温度、top-k、top-p 之前与之后（sampling.filter_logits）；
- 第 22 课：种子 0 那首五言每一格允许的字占模型多少概率（constraints.Constraint）；
- 第 23 课：藏头诗“春夏秋冬”每句第 0 格，模型本来给藏头字多少概率；
- 第 24 课：《山行》逐字对照最合的平仄格式（prosody.tone_report、quatrain_rhyme）；
- 第 25 课：记下的 ./poet eval（figures/eval.json、eval-plain.json）里押韵、平仄、粘对、重复几行，模型对照人写；
- 第 26 课：每个参数预算选出的宽度，参数分成字向量表、位置表与 Block（在 meta 设备上建模型数参数）。
"""
from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from html import escape
from typing import Callable

import torch

from ..checkpoint import load_model
from ..common import COURSE_SEED
from ..data import SEP, default_tokenizer, encode_sample, load_poems, split_lines
from ..metrics import loss_curves
from ..model import ModelConfig, PoetryGPT
from ..probes import attention_weights

PAPER = (251, 248, 241)   # 纸色
INK = (140, 47, 27)       # 朱砂：正数、注意力权重
BLUE = (47, 93, 140)      # 靛蓝：负数


@dataclass(frozen=True)
class Figure:
    """一张插图：标题、SVG 源码、逐步解读（纯文本，每条一步）。"""

    title: str
    svg: str
    steps: list[str]


def _mix(color: tuple[int, int, int], amount: float) -> str:
    """从纸色向 color 过渡，amount 在 0–1 之间。"""
    amount = max(0.0, min(1.0, amount))
    r, g, b = (round(p + (c - p) * amount) for p, c in zip(PAPER, color))
    return f"#{r:02x}{g:02x}{b:02x}"


def _num(x: float, digits: int = 3) -> str:
    """短写法：-0.020 → −.020，给格子里的小数省地方。"""
    text = f"{abs(x):.{digits}f}".lstrip("0") or "0"
    return ("−" if x < 0 and float(text) != 0 else "") + text


def _svg(width: int, height: int, label: str, body: list[str]) -> str:
    """整张图。宽度随栏宽缩放，但最多放大到 1.3 倍、最少保留 480 像素宽（手机上图框里可以横向滑动），
    字不会小到看不清。"""
    style = f"min-width:{min(width, 480)}px;max-width:{round(width * 1.3)}px"
    return (f'<svg class="figure-svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'style="{style}" role="img" aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg" '
            f'font-family="inherit">' + "".join(body) + "</svg>")


def _text(x: float, y: float, content: str, size: int = 12, anchor: str = "start", fill: str = "#2b2620",
          weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
            f'font-weight="{weight}">{escape(content)}</text>')


# ---------- 第 01 课：从一个“月”字到下一个字 ----------

def lesson01() -> Figure:
    """第 01 课实验的那条流水线，换成语料里的一首真诗：张继《枫桥夜泊》、关键词“月”，前文是条件区加上
    最后一个汉字之前的正文（实验的取法）。每一段的形状是把它送进一个 base 预设尺寸的新建模型、
    像实验那样一段一段算出来的（没有读发布的模型：形状只由尺寸决定，与训练无关）。"""
    from ..data import BOS, form_of
    from ..train import PRESETS

    tok = default_tokenizer()
    poem = next(p for p in load_poems() if p["title"] == "枫桥夜泊" and p["author"] == "张继")
    form = form_of(name=poem["form"])
    keyword = "月"
    cut = len(poem["text"]) - 2                        # 与实验一样：最后两个字符是韵脚和“。”
    prefix, answer = poem["text"][:cut], poem["text"][cut]
    condition = [BOS, form.token] + tok.encode(keyword) + [SEP]
    ids = torch.tensor([condition + tok.encode(prefix)])                       # [B, T]
    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)
        model = PoetryGPT(ModelConfig(vocab_size=len(tok), **PRESETS["base"].model)).eval()
    cfg = model.config
    B, T = ids.shape
    with torch.no_grad():
        hidden = model.characters(ids) + model.positions(torch.arange(T))     # [B, T, C]
        first = list(hidden.shape)
        for block in model.blocks:
            hidden = block(hidden)
        after = list(hidden.shape)
        logits = model.head(model.norm(hidden))                               # [B, T, V]
        probs = torch.softmax(logits[0, -1], dim=-1)                          # [V]
    p_answer = probs[tok.stoi[answer]].item()
    shown = [tok.tokens[i] for i in ids[0, :8].tolist()]
    stages = [
        ("条件区 + 已写的正文", " ".join(tok.tokens[i] for i in condition) + f" {prefix[:7]}…{prefix[-4:]}",
         f"文本，{T} 个标记", "汉字表 Tokenizer（第 05、06 课）"),
        ("编号 ids", str(ids[0, :8].tolist())[:-1] + ", …]", str([B, T]), "查字向量表，加位置向量（第 08、09 课）"),
        ("向量 hidden", f"每个位置一行 C = {cfg.width} 个数", str(first),
         f"{cfg.n_layers} 层 Block：注意力 + 前馈网络（第 10–13 课）"),
        ("向量 hidden", "形状不变，已汇总了前文", str(after), "最后的层归一化 + 输出层（第 14 课）"),
        ("分数 logits", f"每个位置给 V = {cfg.vocab_size} 个标记各打一分", str(list(logits.shape)),
         "取最后一个位置，softmax（第 20 课）"),
        ("概率 probs", f"V 个数，加起来等于 {probs.sum().item():.4f}", str(list(probs.shape)),
         "按概率抽一个字（第 21–24 课：温度、截断、格式、诗律）"),
        ("下一个字", f"诗里写的是“{answer}”", "", ""),
    ]
    width, box_h, gap, top = 680, 34, 30, 34
    height = top + len(stages) * box_h + (len(stages) - 1) * gap + 14
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"{poem['author']}《{poem['title']}》，关键词“{keyword}”：看着前文，给下一个字打分"
                          f"（模型取 base 预设的尺寸：{cfg.n_layers} 层、C = {cfg.width}、{cfg.n_heads} 个头）", 12,
                  fill=MUTED)]
    for i, (name, content, shape, arrow) in enumerate(stages):
        y = top + i * (box_h + gap)
        last = i == len(stages) - 1
        body.append(f'<rect x="12" y="{y}" width="{width - 24}" height="{box_h}" rx="4" '
                    f'fill="{"#f1d2c7" if last else "#fffdf8"}" stroke="#d9cfbd"/>')
        body.append(_text(24, y + 22, name, 13, weight="bold"))
        body.append(_text(160, y + 22, content, 13 if last else 12, weight="bold" if last else "normal"))
        body.append(_text(width - 24, y + 22, shape, 13, "end", "#8c2f1b", "bold"))
        if arrow:
            body.append(_text(60, y + box_h + gap / 2 + 5, "↓", 14, "middle", MUTED))
            body.append(_text(76, y + box_h + gap / 2 + 5, arrow, 11, fill=MUTED))
    steps = [
        f"前文 = 条件区（{' '.join(tok.tokens[i] for i in condition)}）+ 已经写出的正文。这里用语料里的真诗"
        f"{poem['author']}《{poem['title']}》，与实验的取法一样，正文写到最后一个汉字之前，要猜的是韵脚“{answer}”。",
        f"汉字表把每个标记换成编号：前 8 个是 {' '.join(shown)} → {ids[0, :8].tolist()}。"
        f"一条序列、{T} 个位置，ids 的形状 [B, T] = {[B, T]}。",
        f"每个编号查出一行 C = {cfg.width} 个数，再加上位置表的一行：{first}。"
        f"穿过 {cfg.n_layers} 层 Block 后形状不变：{after}。",
        f"输出层给每个位置打 V = {cfg.vocab_size} 个分数：logits {list(logits.shape)}。只有最后一个位置在预测下一个字，"
        f"softmax 把它的 {cfg.vocab_size} 个分数变成加起来等于 1 的概率。",
        f"这里的模型刚刚新建、还没训练，给“{answer}”的概率只有 {p_answer:.6f}，和 1/V = {1 / cfg.vocab_size:.6f} "
        "差不多：每个字都差不多。训练（第 15–19 课）就是把诗里真正写了的字的概率推高；"
        "实验用随课程发布的、训练好的模型走同一条路。",
        "写诗时按概率抽一个字接到前文后面，再从头走一遍，直到写满四句。",
    ]
    return Figure("从一个“月”字到下一个字", _svg(width, height, "一首诗的前文经过模型各段变成下一个字的概率", body),
                  steps)


# ---------- 第 02 课：一批诗的三种形状 ----------

def lesson02() -> Figure:
    """与第 02 课实验同一首《静夜思》：编号张量 [B, T] 的每一格，和它往下变成的 [B, T, C]、[B, T, V]。"""
    tok = default_tokenizer()
    poem = next(p for p in load_poems() if p["title"] == "静夜思" and p["author"] == "李白")
    lines = split_lines(poem["text"])
    ids = torch.tensor([tok.encode(line) for line in lines])                  # [B, T]
    B, T = ids.shape
    C, V = 8, len(tok)                                                         # C 是实验里建的小表的宽度
    cell_w, cell_h, left, top = 62, 46, 64, 40
    width = left + T * cell_w + 200
    grid_h = B * cell_h
    stages = [(f"x = characters(ids)", [B, T, C], f"每格查出 C = {C} 个数"),
              (f"h = x + pos（pos [{T}, {C}] 广播到每一句）", [B, T, C], "形状不变"),
              (f"logits = h @ characters.weight.T", [B, T, V], "每格 V 个分数"),
              ("logits.reshape(B * T, V)", [B * T, V], "交给 cross_entropy")]
    height = top + grid_h + 34 + len(stages) * 44 + 10
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"ids [B, T] = [{B}, {T}]：一行一句，一格一个字的编号", 13, weight="bold")]
    for b in range(B):
        y = top + b * cell_h
        body.append(_text(left - 10, y + 28, f"b={b}", 11, "end", MUTED))
        for t in range(T):
            x = left + t * cell_w
            first = t == 0
            body.append(f'<rect x="{x}" y="{y}" width="{cell_w - 4}" height="{cell_h - 4}" rx="3" '
                        f'fill="{"#f1d2c7" if first else "#fffdf8"}" stroke="#d9cfbd"/>')
            body.append(_text(x + (cell_w - 4) / 2, y + 19, lines[b][t], 16, "middle", weight="bold"))
            body.append(_text(x + (cell_w - 4) / 2, y + 36, str(ids[b, t].item()), 11, "middle", MUTED))
        body.append(_text(left + T * cell_w + 6, y + 28, f"← ids[{b}]，形状 [{T}]", 11, fill=MUTED))
    body.append(_text(left, top + grid_h + 14, f"红底一列：ids[:, 0] = {tok.decode(ids[:, 0])}，形状 [{B}]", 11,
                      fill="#8c2f1b"))
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
    return Figure("一批诗的三种形状", _svg(width, height, "静夜思的编号张量与它的形状变化", body), steps)


# ---------- 第 03 课：少数常用字撑起大部分正文 ----------

@functools.cache
def _character_counts():
    """全部诗的正文汉字计数（poem_body 去掉标点），与第 03 课实验同样地数。"""
    from collections import Counter

    from ..data import poem_body

    chars: Counter = Counter()
    for p in load_poems():
        chars.update(poem_body(p["text"]))
    return chars


def lesson03() -> Figure:
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
    points = [(0, 0)] + [(n, covered[n - 1] / total) for n in range(1, len(covered) + 1, 20)] \
        + [(len(covered), 1.0)]
    body.append(_polyline(points, X, Y, "#8c2f1b"))
    for i, (share, n) in enumerate(need.items()):
        body.append(f'<line x1="{X(n):.1f}" y1="{Y(share):.1f}" x2="{X(n):.1f}" y2="{Y(0):.1f}" stroke="#c9a27e" '
                    f'stroke-dasharray="3 3"/>')
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
    return Figure("覆盖曲线：少数常用字撑起大部分正文", _svg(width, height, "前 n 个字覆盖正文比例的曲线", body), steps)


# ---------- 第 04 课：一条记录要过的关 ----------

_CLEAN_STEPS = [("① 拼起来、去空白", ("空记录",)), ("② 繁转简", ()), ("③ 统一标点", ()),
                ("④ 逐字检查", ("有缺字", "有括注", "有拉丁字母或数字", "有其他符号")),
                ("⑤ 按 ，。？！ 切句", ("结尾缺少标点",)), ("⑥ 数句子", ("不是四句",)),
                ("⑦ 量句长", ("句子长短不一", "不是五言或七言"))]
"""clean_record 的七步（第 04 课图解的顺序），每一步可能给出的 BadRecord 原因。"""


def lesson04() -> Figure:
    """第 04 课的 14 条原始记录（lessons/04/bad_records.json）逐条交给 data.clean_record：
    每一步还剩几条、在哪一步因为什么原因被剔除，繁转简与统一标点改了哪些字。

    Raises:
        ValueError: clean_record 给出了 _CLEAN_STEPS 里没有的原因（图就对不上 clean_record 了）。
    """
    from ..common import ROOT, read_json
    from ..data import BadRecord, clean_record, to_simplified

    records = read_json(ROOT / "lessons" / "04" / "bad_records.json")
    step_of = {reason: i for i, (_, reasons) in enumerate(_CLEAN_STEPS) for reason in reasons}
    dropped: dict[int, dict[str, list[str]]] = {i: {} for i in range(len(_CLEAN_STEPS))}
    kept = []
    for raw in records:
        title = to_simplified(raw["title"])
        try:
            kept.append((raw, clean_record(raw)))
        except BadRecord as e:
            if e.reason not in step_of:
                raise ValueError(f"clean_record 给出了图里没有的原因“{e.reason}”：请更新 _CLEAN_STEPS") from e
            dropped[step_of[e.reason]].setdefault(e.reason, []).append(title)
    simplified, punctuation = [], []                         # 通过的记录里，第 ② 步、第 ③ 步改了什么（按出现的先后）
    for raw, poem in kept:
        before = "".join("".join(raw["paragraphs"]).split())
        middle = to_simplified(before)
        for a, b in zip(before, middle):
            if a != b and f"{a}→{b}" not in simplified:
                simplified.append(f"{a}→{b}")
        for a, b in zip(middle, poem["text"]):
            if a != b and f"{a}→{b}" not in punctuation:
                punctuation.append(f"{a}→{b}")
    notes = {1: "，".join(simplified[:6]) + " …", 2: "，".join(punctuation) + "（半角标点换成全角，分号、冒号、顿号换成逗号）"}
    width, square, top, line_h = 780, 14, 40, 20
    x_label, x_squares, x_note = 12, 170, 170 + len(records) * (square + 2) + 36
    rows = [max(1, len(dropped[i])) for i in range(len(_CLEAN_STEPS))]
    height = top + sum(rows) * line_h + len(rows) * 8 + 56
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"lessons/04/bad_records.json 的 {len(records)} 条原始记录，依次过 clean_record 的七步；"
                          "一个方块一条记录，红框是在这一步被剔除的", 12, fill=MUTED)]
    left, y = len(records), top
    for i, (label, _) in enumerate(_CLEAN_STEPS):
        out = sum(len(titles) for titles in dropped[i].values())
        body.append(_text(x_label, y + 15, label, 13, weight="bold"))
        for j in range(left):
            leaving = j >= left - out
            body.append(f'<rect x="{x_squares + j * (square + 2)}" y="{y + 3}" width="{square}" height="{square}" '
                        f'rx="2" fill="{"#fffdf8" if leaving else "#c9a27e"}" '
                        f'stroke="{"#8c2f1b" if leaving else "#c9a27e"}" stroke-width="1.5"/>')
        body.append(_text(x_squares + left * (square + 2) + 2, y + 15, str(left - out), 11, fill=MUTED))
        if out:
            for k, (reason, titles) in enumerate(dropped[i].items()):
                body.append(_text(x_note, y + 15 + k * line_h, f"{reason} −{len(titles)}：" + "、".join(
                    t[:8] for t in titles), 12, fill="#8c2f1b"))
        else:
            body.append(_text(x_note, y + 15, notes.get(i, "没有记录在这一步被剔除"), 12, fill=MUTED))
        left -= out
        y += rows[i] * line_h + 8
    body.append(f'<line x1="12" y1="{y + 2}" x2="{width - 12}" y2="{y + 2}" stroke="#d9cfbd"/>')
    body.append(_text(x_label, y + 24, f"收入 {len(kept)} 条", 13, weight="bold", fill="#8c2f1b"))
    body.append(_text(x_squares, y + 24, "、".join(f"《{p['title']}》{p['form']}" for _, p in kept), 12))
    reasons = [(reason, len(titles)) for i in dropped for reason, titles in dropped[i].items()]
    check = next(i for i, (label, _) in enumerate(_CLEAN_STEPS) if label.startswith("④"))
    steps = [
        f"lessons/04/bad_records.json 是从原始数据里原样摘出的 {len(records)} 条记录，每条交给 "
        "poetry_gpt.data.clean_record；一个方块代表一条记录，一行是一步，红框是在这一步被剔除的。",
        f"① 把 paragraphs 拼起来、去掉空白：{'、'.join(dropped[0].get('空记录', [])) or '没有'}什么都不剩，是“空记录”，"
        f"剩 {len(records) - len(dropped[0].get('空记录', []))} 条。",
        f"② 繁转简与 ③ 统一标点只改字、不剔除：通过的几首里 {'，'.join(simplified[:6])} 等，标点 {'，'.join(punctuation)}。",
        f"④ 逐字检查剔除的最多：" + "，".join(f"{reason} {n} 条" for reason, n in reasons
                                            if step_of[reason] == check) + "。",
        "⑤ 到 ⑦ 看句子：" + "，".join(f"{reason} {n} 条" for reason, n in reasons if step_of[reason] > check) + "。",
        f"最后收入 {len(kept)} 条：" + "、".join(f"《{p['title']}》" for _, p in kept)
        + "。收入的诗还要按正文去重，才进语料（实验第 4 部分）。",
    ]
    return Figure("一条记录要过的关", _svg(width, height, "十四条原始记录逐步通过或被剔除的示意图", body), steps)


# ---------- 第 05 课：汉字表，特殊标记在前 ----------

def lesson05() -> Figure:
    """发布的汉字表 data/vocab.json：前 13 个编号与最后一个，训练集里的出现次数（Tokenizer.counts），
    再编码一句、解码回来。"""
    from ..data import SPECIAL

    tok = default_tokenizer()
    shown = list(range(len(SPECIAL) + 6)) + [len(tok) - 1]
    width, row_h, top = 640, 24, 34
    text = "春眠不觉晓，"
    ids = tok.encode(text)
    height = top + row_h * (len(shown) + 1) + 70
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"汉字表共 V = {len(tok)} 个编号；横条是训练集里的出现次数", 12, fill=MUTED)]
    scale = max(tok.counts)
    y = top
    for k, i in enumerate(shown):
        if k == len(shown) - 1:                                                # 中间省略的一行
            body.append(_text(60, y + 16, "⋮", 14, "end", MUTED))
            y += row_h
        special = i < len(SPECIAL)
        body.append(_text(48, y + 16, str(i), 12, "end", MUTED))
        body.append(f'<rect x="58" y="{y + 2}" width="64" height="{row_h - 4}" rx="3" '
                    f'fill="{"#e3ecf5" if special else "#fffdf8"}" stroke="#d9cfbd"/>')
        body.append(_text(90, y + 17, tok.tokens[i], 13, "middle", "#2f5d8c" if special else "#2b2620",
                          weight="normal" if special else "bold"))
        w = (width - 260) * tok.counts[i] / scale
        if tok.counts[i]:
            body.append(f'<rect x="132" y="{y + 5}" width="{max(w, 1.5):.1f}" height="{row_h - 10}" rx="2" '
                        f'fill="#c9a27e"/>')
        body.append(_text(138 + max(w, 1.5), y + 16, str(tok.counts[i]) if not special else "特殊标记：0", 11,
                          fill=MUTED))
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
    return Figure("汉字表：特殊标记在前，字按次数排", _svg(width, height, "汉字表前几个编号与出现次数", body), steps)


# ---------- 第 06 课：一条样本的排布与损失掩码 ----------

def lesson06() -> Figure:
    """孟浩然《春晓》的样本（encode_sample、make_batch，与第 06 课实验相同）：每一格的输入、目标、是否计入损失。"""
    from ..data import keywords_for, make_batch, poem_body

    tok = default_tokenizer()
    poem = next(p for p in load_poems() if p["title"] == "春晓" and p["author"] == "孟浩然")
    ids = encode_sample(poem, tok)
    x, y, mask = make_batch([ids])                                             # 各 [1, T]
    T = x.shape[1]
    per_row, cell_w, band = 14, 42, 96
    width = 56 + per_row * cell_w + 12
    bands = (T + per_row - 1) // per_row
    height = 30 + bands * band + 8
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 18, "每一格：上面是输入（模型读的），下面是目标（要预测的下一格）；红框计入损失", 12, fill=MUTED)]
    for t in range(T):
        b, k = divmod(t, per_row)
        x0, y0 = 56 + k * cell_w, 30 + b * band
        if k == 0:
            for label, dy in (("位置", 12), ("输入", 34), ("目标", 70)):
                body.append(_text(12, y0 + dy, label, 11, fill=MUTED))
        scored = bool(mask[0, t])
        body.append(_text(x0 + (cell_w - 4) / 2, y0 + 12, str(t), 10, "middle", MUTED))
        body.append(f'<rect x="{x0}" y="{y0 + 18}" width="{cell_w - 4}" height="24" rx="3" fill="#fffdf8" '
                    f'stroke="#d9cfbd"/>')
        name = tok.tokens[x[0, t]]
        body.append(_text(x0 + (cell_w - 4) / 2, y0 + 35, name, 11 if len(name) > 1 else 14,
                          "middle"))
        body.append(_text(x0 + (cell_w - 4) / 2, y0 + 52, "↓", 11, "middle", MUTED))
        body.append(f'<rect x="{x0}" y="{y0 + 56}" width="{cell_w - 4}" height="24" rx="3" '
                    f'fill="{"#f1d2c7" if scored else "#efe9dd"}" '
                    f'stroke="{"#8c2f1b" if scored else "#d9cfbd"}" stroke-width="{1.5 if scored else 1}"/>')
        name = tok.tokens[y[0, t]]
        body.append(_text(x0 + (cell_w - 4) / 2, y0 + 73, name, 11 if len(name) > 1 else 14,
                          "middle", "#2b2620" if scored else MUTED))
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
    return Figure("一条样本：条件区、正文与损失掩码", _svg(width, height, "春晓样本每一格的输入、目标与损失掩码", body), steps)


# ---------- 第 07 课：“明”的下一个字 ----------

def lesson07() -> Figure:
    """训练集里“明”后面跟过的字：计数与加 k 平滑后的 P(下一个 | 明)，前 8 名。

    BigramModel.fit 要把整个训练集排成样本，约 6 秒，不适合每次构建网站都做；“明”这一行的计数
    等于训练诗正文里“明”后面紧跟的字（正文之内相邻的每一对都计入损失，“明”从不在正文的最后一格），
    所以在正文里直接数。与实验的表对照见 tests/test_site.py。"""
    from collections import Counter

    from ..bigram import DEFAULT_K
    from ..data import UNK

    tok = default_tokenizer()
    prev = "明"
    follow = Counter(tok.tokens[tok.stoi.get(text[i + 1], UNK)] for p in load_poems("train")
                     for text in (p["text"],) for i in range(len(text) - 1) if text[i] == prev)
    n, V = sum(follow.values()), len(tok)
    prob = lambda c: (c + DEFAULT_K) / (n + DEFAULT_K * V)                       # noqa: E731
    top = follow.most_common(8)
    width, row_h = 640, 26
    height = 44 + row_h * (len(top) + 1) + 12
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"训练集里“{prev}”后面一共跟过 {n} 次；横条是 P(下一个 | {prev}) = (c + k) / (n + k·V)，"
                          f"k = {DEFAULT_K:g}", 12, fill=MUTED)]
    scale = prob(top[0][1])
    rows = [(ch, prob(c), ch in "，。？！") for ch, c in top] + [("鲸", prob(follow["鲸"]), False)]
    _bars(body, 12, 34, rows, width - 220, scale, row_h, 40, 4)
    for i, (ch, c) in enumerate(top + [("鲸", follow["鲸"])]):
        body.append(_text(width - 12, 34 + i * row_h + 15, f"c = {c}", 11, "end", MUTED))
    steps = [
        f"在训练集的每首诗里，把相邻两个字记成一对 (前一个, 下一个)。“{prev}”当过 {n} 次前一个字，这是计数表里“{prev}”那一行的合计 n。",
        "横条是这一行里次数最多的 8 个下一个字（红：标点），右边是次数 c："
        + "、".join(f"“{ch}” {c}" for ch, c in top[:4]) + "……",
        f"加 k 平滑再归一：P(。| {prev}) = ({follow['。']} + {DEFAULT_K:g}) / ({n} + {DEFAULT_K:g} × {V}) = "
        f"{prob(follow['。']):.4f}。",
        f"最后一行“鲸”：“{prev}鲸”在训练集里一次也没出现，平滑后仍有 {prob(0):.8f}——不为 0，"
        "val 里遇到没见过的一对时交叉熵才不会变成无穷大。",
        "二元模型只看前一个字：不论前面写了什么，只要上一个字是“明”，下一个字的分布就是这一行。",
    ]
    return Figure(f"“{prev}”的下一个字", _svg(width, height, f"{prev}后面各字的概率横条", body), steps)


# ---------- 第 08 课：one-hot 乘表就是查表 ----------

def lesson08() -> Figure:
    """与第 08 课实验相同的种子与新建模型：“春风月”的 one-hot 行，乘字向量表，取出的就是那几行。"""
    from torch.nn import functional as F

    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)                                         # 与实验开头的 setup_experiment() 同一个种子
        tok = default_tokenizer()
        model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
    weight = model.characters.weight.detach()                                  # [V, C]
    V, C = weight.shape
    text = "春风月"
    ids = torch.tensor(tok.encode(text))                                       # [3]
    one_hot = F.one_hot(ids, V).float()                                        # [3, V]
    product = one_hot @ weight                                                 # [3, C]
    k, shown = 4, 40                                                           # 画前 4 个数、one-hot 的前 40 列
    cell, left, row_h = 8, 70, 64
    strip_w = shown * cell + 24
    width = left + strip_w + 60 + k * 52 + 12
    height = 40 + row_h * len(text) + 10
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 18, f"one-hot [T, V] = [{len(text)}, {V}]（只画前 {shown} 列）  @  字向量表 [V, C] = [{V}, {C}]"
                          f"  =  [T, C]（只画前 {k} 个数）", 12, fill=MUTED)]
    for t, ch in enumerate(text):
        y = 36 + t * row_h
        i = ids[t].item()
        body.append(_text(12, y + 20, f"“{ch}” {i}", 13, weight="bold"))
        for j in range(shown):
            on = one_hot[t, j].item() == 1
            body.append(f'<rect x="{left + j * cell}" y="{y + 8}" width="{cell - 1}" height="16" '
                        f'fill="{"#8c2f1b" if on else "#efe9dd"}"/>')
        body.append(_text(left + shown * cell + 4, y + 21, "…", 12, fill=MUTED))
        body.append(_text(left + i * cell + cell / 2, y + 38, f"第 {i} 列是 1", 10, "middle", "#8c2f1b"))
        x0 = left + strip_w + 12
        body.append(_text(x0, y + 21, "→", 14, fill=MUTED))
        for j in range(k):
            v = product[t, j].item()
            body.append(f'<rect x="{x0 + 24 + j * 52}" y="{y + 4}" width="48" height="24" rx="3" '
                        f'fill="{_mix(INK if v >= 0 else BLUE, abs(v) / 0.06)}" stroke="#d9cfbd"/>')
            body.append(_text(x0 + 48 + j * 52, y + 21, _num(v, 4), 11, "middle"))
        body.append(_text(x0 + 24, y + 44, f"= 表的第 {i} 行", 10, fill=MUTED))
    same = torch.allclose(product, model.characters(ids).detach())
    fmt = lambda v: "[" + ", ".join(f"{x:.4f}" for x in v[:k].tolist()) + "]"   # noqa: E731
    steps = [
        f"“{text}”的编号是 {ids.tolist()}。one-hot 把每个编号变成长 V = {V} 的一行，只有那一列是 1（红），其余都是 0。",
        f"one-hot [{len(text)}, {V}] 乘字向量表 [{V}, {C}]：每一行的结果是表里各行按 0、1 加权求和，"
        "只有为 1 的那一行留下来。",
        f"所以“{text[0]}”那一行的结果就是表的第 {ids[0].item()} 行，前 4 个数 {fmt(product[0])}；"
        f"与直接查表 characters(ids) 相同：{'是' if same else '否'}。",
        f"工作量差得很多：乘法要做 {len(text)} × {V} × {C} = {len(text) * V * C} 次乘加，查表一次也不用，"
        f"只是取出 {len(text)} × {C} = {len(text) * C} 个数。",
        "反向传播也一样：只有被查到的那几行有梯度，别的行的梯度都是 0。",
    ]
    return Figure("one-hot 乘表就是查表", _svg(width, height, "春风月的 one-hot 行乘字向量表", body), steps)


# ---------- 第 09 课：字向量 + 位置行 = 送进模型的向量 ----------

def lesson09() -> Figure:
    """与 lessons/09/experiment.py 相同的新建模型，画“春风月”每个位置的前 4 个数。"""
    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)  # 与实验开头的 setup_experiment() 同一个种子
        tok = default_tokenizer()
        model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
    text, swapped = "春风月", "风春月"
    with torch.no_grad():
        ids = torch.tensor([tok.encode(text)])                  # [1, 3]
        ids_b = torch.tensor([tok.encode(swapped)])
        pos = torch.arange(ids.shape[1])                        # [3]
        chars = model.characters(ids)[0]                        # [3, C]
        rows = model.positions(pos)                             # [3, C]
        summed = (model.characters(ids) + model.positions(pos))[0]      # [3, C]，实验里的 ha[0]
        summed_b = (model.characters(ids_b) + model.positions(pos))[0]  # 实验里的 hb[0]
    k = 4  # 实验打印每行前 4 个数
    scale = max(chars[:, :k].abs().max(), rows[:, :k].abs().max(), summed[:, :k].abs().max()).item()

    # 竖排：每个位置一块，三行依次是字向量、位置行、相加；手机上不必缩得太小
    cell, left, label_w, row, block = 46, 10, 92, 34, 150
    width = left * 2 + label_w + cell * k
    height = block * len(text) + 4
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>']

    def strip_at(x0: float, y0: float, values: torch.Tensor, bold: bool) -> None:
        for i in range(k):
            v = values[i].item()
            fill = _mix(INK if v >= 0 else BLUE, abs(v) / scale)
            ink = "#fffdf8" if abs(v) / scale > 0.6 else "#2b2620"
            stroke = 'stroke="#8c2f1b" stroke-width="1.5"' if bold else 'stroke="#d9cfbd"'
            body.append(f'<rect x="{x0 + i * cell:.1f}" y="{y0:.1f}" width="{cell - 3}" height="{row - 6}" rx="3" '
                        f'fill="{fill}" {stroke}/>')
            body.append(_text(x0 + i * cell + (cell - 3) / 2, y0 + 18, _num(v), 12, "middle", ink))

    for t, ch in enumerate(text):
        y = t * block + 6
        body.append(_text(left, y + 14, f"位置 {t} · “{ch}”（编号 {ids[0, t].item()}）", 14, weight="bold"))
        for j, (label, values) in enumerate(((f"字向量[{ch}]", chars[t]), (f"+ 位置行[{t}]", rows[t]),
                                             (f"= h{t}", summed[t]))):
            yy = y + 24 + j * row
            body.append(_text(left, yy + 18, label, 13, fill="#8c2f1b" if j == 2 else "#6b6155",
                              weight="bold" if j == 2 else "normal"))
            strip_at(left + label_w, yy, values, j == 2)
        if t + 1 < len(text):
            body.append(f'<line x1="{left}" y1="{y + block - 12}" x2="{width - left}" y2="{y + block - 12}" '
                        f'stroke="#e2d8c6" stroke-dasharray="4 4"/>')

    same = [torch.equal(summed[t], summed_b[t]) for t in range(len(text))]
    fmt = lambda v: "[" + ", ".join(f"{x:.4f}" for x in v[:k].tolist()) + "]"
    steps = [
        f"字向量：“春”的编号是 {ids[0, 0].item()}，在 characters 里查出第 {ids[0, 0].item()} 行，前 4 个数 {fmt(chars[0])}。"
        "同一个字不论放在哪个位置，查到的都是这一行。",
        f"位置 0：positions 的第 0 行 {fmt(rows[0])}，只和“第一个位置”有关，与是什么字无关。",
        f"合在一起：两行逐项相加得到 h0 {fmt(summed[0])}，宽度仍是 C = {chars.shape[1]}，图里只画前 4 个数，h 那一行描了红框。",
        f"位置 1：“风”加的是第 1 行 {fmt(rows[1])}；每一行的位置部分都不同。",
        f"交换顺序：换成“{swapped}”后，第 1 行变成 {fmt(summed_b[0])}。三行是否相同："
        + "、".join("是" if s else "否" for s in same) + "——“月”仍在位置 2，所以只有第 3 行不变。",
        "格子的颜色：朱红是正数，靛蓝是负数，越深绝对值越大。模型刚建好还没训练，这些数都很小（约 ±0.05）。",
    ]
    return Figure("用真实的数看“字 + 位置”", _svg(width, height, "春风月每个位置的字向量、位置行与相加结果", body), steps)


# ---------- 第 10、11 课：发布模型第 0 层的注意力权重 ----------

@functools.cache  # 第 10、11 课用同一份：模型与语料只读一次
def _trained_line_weights():
    """与第 10、11 课实验同一句：验证集里第一首七言绝句的第一句，前面接上训练时的条件区。

    返回 (诗, 这一句, 列标签, 正文开始的位置, 权重 [H, 句长, 条件区 + 句长])。
    """
    tok = default_tokenizer()
    model, _ = load_model()
    poem = next(p for p in load_poems("val") if p["form"] == "七言绝句")
    line = split_lines(poem["text"])[0]
    sample = encode_sample(poem, tok)
    start = sample.index(SEP) + 1
    ids = torch.tensor([sample[: start + len(line)]])            # [1, 12]
    labels = [tok.tokens[i] for i in ids[0].tolist()]
    weights = attention_weights(model, ids, layer=0)[0, :, start:]  # [H, 7, 12]
    return poem, line, labels, start, weights


def _heatmap(body: list[str], x0: float, y0: float, w: torch.Tensor, rows: list[str], cols: list[str],
             start: int, cell: int, title: str) -> tuple[float, float]:
    """在 (x0, y0) 画一张权重热图，返回它占的宽和高。w: [len(rows), len(cols)]。"""
    label_w, label_h = 26, 30
    body.append(_text(x0, y0 + 14, title, 13, weight="bold"))
    y0 += 22
    for j, name in enumerate(cols):
        body.append(_text(x0 + label_w + j * cell + cell / 2, y0 + label_h - 9, name, 9 if len(name) > 1 else 12,
                          "middle", "#6b6155" if j < start else "#2b2620"))
    for i, name in enumerate(rows):
        y = y0 + label_h + i * cell
        body.append(_text(x0 + label_w / 2, y + cell / 2 + 4.5, name, 13, "middle"))
        for j in range(len(cols)):
            x = x0 + label_w + j * cell
            if j > start + i:  # 后文：因果遮挡看不到
                body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell - 2}" height="{cell - 2}" fill="#efe9dd"/>')
                continue
            v = w[i, j].item()
            body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell - 2}" height="{cell - 2}" rx="2" '
                        f'fill="{_mix(INK, v ** 0.7)}" stroke="#d9cfbd"/>')
            if cell >= 26:
                body.append(_text(x + (cell - 2) / 2, y + cell / 2 + 3.5, _num(v, 2), 11, "middle",
                                  "#fffdf8" if v > 0.35 else "#2b2620"))
    # 条件区与正文的分界线
    xs = x0 + label_w + start * cell - 1
    body.append(f'<line x1="{xs:.1f}" y1="{y0 + label_h - 4:.1f}" x2="{xs:.1f}" '
                f'y2="{y0 + label_h + len(rows) * cell:.1f}" stroke="#8c2f1b" stroke-dasharray="3 3"/>')
    return label_w + len(cols) * cell, 22 + label_h + len(rows) * cell


def _previous_weight(w: torch.Tensor, start: int) -> torch.Tensor:
    """w: [H, 句长, 列数] → [H]：正文每一行给上一个位置的权重，在各行上取平均（第 10 课实验的挑头办法）。"""
    return w.diagonal(offset=start - 1, dim1=-2, dim2=-1).mean(-1)


def lesson10() -> Figure:
    """发布模型层 0 里最看“上一个字”的那个头，看验证集的一句诗。"""
    poem, line, labels, start, w = _trained_line_weights()
    prev = _previous_weight(w, start)
    head = prev.argmax().item()
    wh = w[head]                                                   # [7, 12]
    body: list[str] = []
    cell = 40
    fig_w, fig_h = _heatmap(body, 12, 6, wh, list(line), labels, start, cell,
                            f"层 0、头 {head}：行是正文的字，列是它能看到的位置")
    width, height = int(fig_w + 24), int(fig_h + 16)
    body.insert(0, f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>')
    T = len(line)
    to_prev = [wh[t, start + t - 1].item() for t in range(T)]
    wins = sum(wh[t].argmax().item() == start + t - 1 for t in range(T))
    best = max(range(1, T), key=lambda t: to_prev[t])
    steps = [
        f"输入：验证集里 {poem['author']}《{poem['title']}》的第一句“{line}”，前面是训练时的条件区 "
        f"{' '.join(labels[:start])}，共 {len(labels)} 个位置。虚线左边是条件区。",
        "每一行是正文的一个字，每一格是它给那一列的注意力权重；格子越红权重越大，每行加起来是 1。",
        "右上方的浅灰格是后文：因果遮挡让一个字看不到它后面的字，权重为 0。",
        f"挑头：{len(prev)} 个头给“上一个位置”的平均权重是 {', '.join(f'{p:.2f}' for p in prev.tolist())}，"
        f"头 {head} 最大，所以画它。训练不规定哪个头做什么，重训后可能换成别的头。",
        f"读一行：“{line[best]}”把 {to_prev[best]:.2f} 的权重给了上一个字“{labels[start + best - 1]}”；"
        f"平均分配的话每格只有 {1 / (start + best + 1):.2f}。",
        f"整体：{T} 行里有 {wins} 行把最大的权重给了上一个位置。它学会了“回头看一眼上一个字”。",
    ]
    return Figure("发布模型的一个注意力头", _svg(width, height, f"层 0、头 {head} 的注意力权重热图", body), steps)


def lesson11() -> Figure:
    """发布模型层 0 的各个头看同一句，两个一排。"""
    poem, line, labels, start, w = _trained_line_weights()
    H, T = w.shape[0], len(line)
    prev = _previous_weight(w, start)
    cell = 24
    body: list[str] = []
    pane_w = pane_h = 0.0
    for i in range(H):
        x, y = 12 + (i % 2) * (pane_w + 24 if pane_w else 0), 6 + (i // 2) * (pane_h + 14 if pane_h else 0)
        pane_w, pane_h = _heatmap(body, x, y, w[i], list(line), labels, start, cell, f"头 {i}")
    width, height = int(12 + 2 * pane_w + 24 + 12), int(6 + 2 * pane_h + 14 + 10)
    body.insert(0, f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>')
    steps = [f"同一句“{line}”（{poem['author']}《{poem['title']}》）和同样的条件区，层 0 的 {H} 个头各算一张权重表。"]
    for i in range(H):
        top = w[i].argmax(-1).tolist()                             # 每行最大权重的列
        targets = [labels[j] for j in top]
        common = max(targets, key=targets.count)                   # 并列时取先出现的，每次构建都一样
        to_prev = sum(j == start + t - 1 for t, j in enumerate(top))
        # 看上一个字的头，每行的“上一个字”各不相同，按列名数会数少，所以按位置再数一次
        where, count = f"“{common}”", targets.count(common)
        if to_prev > count:
            where, count = "上一个位置", to_prev
        steps.append(f"头 {i}：给上一个位置的平均权重 {prev[i]:.2f}；{T} 行里有 {count} 行把最大的权重给了{where}。")
    steps.append("各头读的是宽度 C 里自己的那一段，训练让它们分了工：有的盯着上一个字，有的回头看条件区。"
                 "哪个头做什么是训练出来的，重训后可能换位置。")
    return Figure("四个头看同一句", _svg(width, height, "层 0 四个注意力头的权重热图", body), steps)


@contextlib.contextmanager
def _one_thread():
    """tiny 尺寸的小模型在一个计算线程上训练：矩阵太小，两个线程分不到活，反而互相空等
    （机器上另有进程在算时，两个线程能慢上几倍）。结束后恢复原来的线程数。"""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


# ---------- 第 17 课：一个训练步 ----------

def _first_step(batch: list[list[int]], model_config: ModelConfig, optimizer_for, clip: float) -> dict:
    """与第 17 课实验一样：种子 26 新建模型，对一批样本做一次前向、反向，按总范数裁剪到 clip，再更新一步。
    返回损失、每个参数张量裁剪前的梯度范数、clip_grad_norm_ 返回的总范数、裁剪后的总范数，
    以及 optimizer.step() 有没有改动位置表。不动全局的随机数状态。"""
    from ..data import make_batch
    from ..loss import scored_loss

    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)
        model = PoetryGPT(model_config).train()
    optimizer = optimizer_for(model)
    optimizer.zero_grad(set_to_none=True)
    with _one_thread():
        loss = scored_loss(model, *make_batch(batch))
        loss.backward()
    norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), clip).item()
    clipped = torch.cat([p.grad.flatten() for p in model.parameters()]).norm().item()
    before = model.positions.weight.detach().clone()
    optimizer.step()
    return {"loss": loss.item(), "norms": norms, "total": total, "clipped": clipped,
            "moved": not torch.equal(before, model.positions.weight)}


def lesson17() -> Figure:
    """第 17 课实验的第 0 步：tiny 预设取第 0 批（batch_indices）、前向、反向、裁剪、更新，每一段的真实数；
    再对照实验第 3 部分（8 首诗、宽 64 的两层模型）第 0 步：单个参数的梯度范数都不到 1.0，总范数却超过 1.0 被裁剪。"""
    from ..data import make_batch
    from ..train import PRESETS, batch_indices, encode_split, learning_rate, make_optimizer

    tok = default_tokenizer()
    tiny = PRESETS["tiny"]
    samples = encode_split("train", tok, tiny.train_poems)
    first = batch_indices(0, len(samples), tiny.batch_size, tiny.seed)
    batch = [samples[i] for i in first]
    x, _, _ = make_batch(batch)
    one = _first_step(batch, ModelConfig(vocab_size=len(tok), **tiny.model), lambda m: make_optimizer(m, tiny),
                      tiny.grad_clip)
    small = _first_step(batch[:8], ModelConfig(vocab_size=len(tok), context_length=48, width=64, n_layers=2, n_heads=2),
                        lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2, betas=(0.9, 0.95), weight_decay=0.0), 1.0)
    clip = tiny.grad_clip
    lr0 = learning_rate(0, tiny)
    pieces = [("① 取批", f"batch_indices(0, {len(samples)}, {tiny.batch_size}, {tiny.seed}) → 样本 "
                        + ", ".join(map(str, first[:4])) + f" …；x, y, mask {list(x.shape)}"),
              ("② 学习率", f"learning_rate(0) = {lr0:g}（预热第 0 步：lr / warmup）"),
              ("③ 前向", f"scored_loss → 损失 {one['loss']:.4f} 奈特/字"),
              ("④ 反向", f"loss.backward() → {len(one['norms'])} 个参数张量各有 .grad"),
              ("⑤ 裁剪", f"总范数 {one['total']:.4f} ≤ {clip} → 梯度原样不动"),
              ("⑥ 更新", "optimizer.step()（AdamW）→ 位置表" + ("变了" if one["moved"] else "没变")),
              ("⑦ 清零", "optimizer.zero_grad(set_to_none=True)，下一步的 backward 从头累加")]
    width, row_h, top = 680, 24, 38
    panel_top = top + len(pieces) * row_h + 30
    bars_a = sorted(one["norms"].items(), key=lambda kv: -kv[1])[:4]
    bars_b = sorted(small["norms"].values(), reverse=True)[:3]
    height = panel_top + 2 * (24 + 5 * 22) + 24
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"tiny 预设（{tiny.model['n_layers']} 层、宽 {tiny.model['width']}）新建模型的第 0 步，"
                          f"种子 {COURSE_SEED}", 12, fill=MUTED)]
    for i, (name, what) in enumerate(pieces):
        y = top + i * row_h
        body.append(f'<rect x="12" y="{y}" width="{width - 24}" height="{row_h - 4}" rx="3" fill="#fffdf8" '
                    f'stroke="#d9cfbd"/>')
        body.append(_text(22, y + 15, name, 12, weight="bold"))
        body.append(_text(96, y + 15, what, 12, fill="#8c2f1b" if name.startswith("⑤") else "#2b2620"))
    body.append(_text(12, panel_top - 8, f"裁剪看的是总范数 √(Σ 各参数范数²)，不是每个参数各自的范数（上限 {clip}）", 12,
                      weight="bold"))
    scale = max(one["total"], small["total"])
    bar_w = width - 12 - 200 - 230                       # 右边留出写“全部 × …”的地方
    y = panel_top
    panels = [(f"上：tiny 第 0 步，{len(one['norms'])} 个参数张量里最大的 4 个", [(n, v) for n, v in bars_a], one),
              ("下：实验第 3 部分（8 首诗、宽 64、2 层）第 0 步，最大的 3 个", [(f"第 {k + 1} 大", v)
                                                                   for k, v in enumerate(bars_b)], small)]
    for title, bars, run in panels:
        body.append(_text(12, y + 14, title, 11, fill=MUTED))
        over = run["total"] > clip
        rows = [(name, v, False) for name, v in bars] + [("总范数", run["total"], over)]
        drawn = _bars(body, 12, y + 20, rows, bar_w, scale, 22, 200, 4)
        x_clip = 12 + 200 + bar_w * clip / scale
        body.append(f'<line x1="{x_clip:.1f}" y1="{y + 20}" x2="{x_clip:.1f}" y2="{y + 20 + drawn}" stroke="#2f5d8c" '
                    f'stroke-dasharray="4 3"/>')
        verdict = (f"> {clip}：全部 × {clip / run['total']:.4f} → {run['clipped']:.4f}" if over
                   else f"≤ {clip}：原样")
        body.append(_text(width - 12, y + 20 + drawn - 7, verdict, 12, "end", "#8c2f1b" if over else MUTED))
        y += 24 + 5 * 22
    body.append(_text(12, height - 10, f"虚线：上限 {clip}", 11, fill="#2f5d8c"))
    steps = [
        f"① 取批：tiny 预设从 train 取 {len(samples)} 条样本，每步 {tiny.batch_size} 首；第 0 步是 "
        f"batch_indices(0, …) 给出的样本 {', '.join(map(str, first[:8]))} ……，排成 x、y、mask，形状 {list(x.shape)}。"
        "第几步取哪些诗只由步数和种子决定。",
        f"② 学习率：train 每一步先按第 16 课的日程写进优化器；第 0 步在预热里，是 lr / warmup = {lr0:g}。",
        f"③ 前向：新建的模型（种子 {COURSE_SEED}）在这一批上的损失是 {one['loss']:.4f} 奈特/字，接近 ln V = "
        f"{math.log(len(tok)):.4f}：还什么都没学。",
        f"④ 反向：backward() 给 {len(one['norms'])} 个参数张量都算出 .grad；梯度范数最大的是 "
        + "、".join(f"{n} {v:.4f}" for n, v in bars_a[:3]) + "。",
        f"⑤ 裁剪：总范数 √(Σ 各参数范数²) = {one['total']:.4f}，不到上限 {clip}，梯度原样不动"
        f"（各参数范数直接相加是 {sum(one['norms'].values()):.4f}，那不是总范数）。",
        f"对照下面那组：实验第 3 部分的模型第 0 步（损失 {small['loss']:.4f}），最大的三个参数范数 "
        + "、".join(f"{v:.4f}" for v in bars_b) + f" 都不到 {clip}，合起来的总范数却是 {small['total']:.4f}，"
        f"所以每个梯度都乘 {clip} / {small['total']:.4f} = {clip / small['total']:.4f}，裁剪后总范数 {small['clipped']:.4f}："
        "方向不变，只是步子短了。",
        "⑥ 更新：AdamW 用（可能被缩小的）梯度改参数，位置表这一步就变了。⑦ 清零：梯度会累加，更新完就扔掉，"
        "下一步的 backward 从头算。",
    ]
    return Figure("一个训练步", _svg(width, height, "训练一步的七段与梯度裁剪的横条图", body), steps)


# ---------- 第 18 课：存档里装着训练的全部记忆 ----------

@functools.cache
def _resume_runs() -> dict:
    """与第 18 课实验第 1、3 部分同样的小训练（tiny 尺寸、dropout 0.1、16 步、每 8 步验证并存档）：
    不中断的一次；第 8 步停下、存档、再续训的一次；从第 8 步的存档续训，但不放回优化器状态、不放回随机数状态各一次。
    返回每次的日志（每步一条）与第 8 步的存档。在临时目录里训练，不动全局的随机数状态。"""
    import random
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    from ..checkpoint import read_checkpoint
    from ..train import PRESETS, make_optimizer, train

    tiny = PRESETS["tiny"]
    config = replace(tiny, model=dict(tiny.model, dropout=0.1), steps=16, warmup=4, batch_size=16, eval_every=8,
                     eval_poems=32, train_poems=512)
    python_state = random.getstate()
    with torch.random.fork_rng(), _one_thread(), tempfile.TemporaryDirectory(prefix="site-lesson18-") as tmp:
        work = Path(tmp)
        straight = train(config, work / "straight", progress=False).log
        train(config, work / "resumed", stop_at=8, progress=False)
        state = read_checkpoint(work / "resumed" / "checkpoint.pt")
        resumed = train(config, work / "resumed", resume=True, progress=False).log
        fresh = make_optimizer(PoetryGPT(ModelConfig(**state["model_config"])), config)
        variants = {"不放回优化器状态": {**state, "optimizer": fresh.state_dict()},
                    "不放回随机数状态": {**state, "rng": {**state["rng"],
                                                    "torch": torch.Generator().manual_seed(1).get_state()}}}
        logs = {}
        for name, changed in variants.items():
            folder = work / name
            folder.mkdir()
            torch.save(changed, folder / "checkpoint.pt")
            logs[name] = train(config, folder, resume=True, progress=False).log
    random.setstate(python_state)
    return {"config": config, "straight": straight, "resumed": resumed, "variants": logs, "state": state}


def lesson18() -> Figure:
    """第 18 课实验的小训练：不中断与第 8 步停下再续训的损失逐步相同；少放回优化器或随机数状态就岔开；
    第 8 步的存档里各部分有多大（read_checkpoint 读回来数）。"""
    runs = _resume_runs()
    config, straight, resumed, state = runs["config"], runs["straight"], runs["resumed"], runs["state"]
    variants = runs["variants"]
    stop = state["step"]
    weights = state["weights"]
    unique = list({id(t): t for t in weights.values()}.values())
    n_params = sum(t.numel() for t in unique)
    size = lambda t: t.numel() * t.element_size()                                      # noqa: E731
    opt_tensors = [v for s in state["optimizer"]["state"].values() for v in s.values() if torch.is_tensor(v)]
    weight_bytes = sum(size(t) for t in unique)
    opt_bytes = sum(size(t) for t in opt_tensors if t.dim() > 0)
    same = [a["loss"] for a in straight] == [e["loss"] for e in resumed]
    width, plot_h, diff_h, right = 680, 230, 150, 180
    losses = [e["loss"] for log in [straight, resumed, *variants.values()] for e in log]
    y_lo, y_hi = math.floor(min(losses) * 2) / 2, math.ceil(max(losses) * 2) / 2
    X, Y, body = _plot(width, plot_h, (1, config.steps), (y_lo, y_hi), margin=(30, right, 34, 48))
    body.append(_text(12, 16, f"tiny 尺寸、dropout {config.model['dropout']}，{config.steps} 步，每步 {config.batch_size} 首诗："
                              "每一步的训练损失（奈特/字）", 12, fill=MUTED))
    v = y_lo
    while v <= y_hi + 1e-9:
        body.append(_text(42, Y(v) + 4, f"{v:g}", 11, "end", MUTED))
        v += 0.5
    for s in (1, stop, config.steps):
        body.append(_text(X(s), plot_h - 18, str(s), 11, "middle", MUTED))
    body.append(f'<line x1="{X(stop):.1f}" y1="30" x2="{X(stop):.1f}" y2="{plot_h - 34}" stroke="#c9a27e" '
                f'stroke-dasharray="3 3"/>')
    body.append(_text(X(stop) + 4, 42, f"第 {stop} 步：存档、退出、读档", 11, fill=MUTED))
    curve = lambda log: [(e["step"], e["loss"]) for e in log]                          # noqa: E731
    body.append(_polyline(curve(straight), X, Y, "#8c2f1b", 3))
    colors = {"不放回优化器状态": ("#2f5d8c", "5 3"), "不放回随机数状态": (MUTED, "2 3")}
    for name, log in variants.items():
        color, dash = colors[name]
        body.append(_polyline([(stop, straight[stop - 1]["loss"])] + curve(log[stop:]), X, Y, color, 1.5, dash))
    circle = lambda x, y: f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#fbf8f1" stroke="#2b2620"/>'  # noqa: E731
    for s, loss in curve(resumed):
        body.append(circle(X(s), Y(loss)))
    legend = [("#8c2f1b", "", "不中断（粗线）"), ("", "", "续训（圆圈）"),
              (*colors["不放回优化器状态"], "不放回优化器状态"), (*colors["不放回随机数状态"], "不放回随机数状态")]
    for i, (color, dash, name) in enumerate(legend):
        y = 50 + i * 20
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        body.append(f'<line x1="{width - 170}" y1="{y}" x2="{width - 146}" y2="{y}" stroke="{color}" '
                    f'stroke-width="2"{extra}/>' if color else circle(width - 158, y))
        body.append(_text(width - 140, y + 4, name, 11))
    last = config.steps - 1
    body.append(_text(width - 170, 50 + 4 * 20 + 8, f"第 {config.steps} 步的损失：", 11, fill=MUTED))
    for i, (name, log) in enumerate([("不中断", straight), ("续训", resumed), *variants.items()]):
        body.append(_text(width - 170, 50 + 4 * 20 + 26 + i * 16, f"{name[:6]} {log[last]['loss']:.5f}", 11))
    # 下面一块：第 stop 步以后，每一次与不中断的那次差多少（上面的线挨得太近，看不出来）
    gaps = {name: [(stop, 0.0)] + [(e["step"], e["loss"] - a["loss"]) for a, e in zip(straight[stop:], log[stop:])]
            for name, log in [("续训", resumed), *variants.items()]}
    reach = max(abs(d) for points in gaps.values() for _, d in points)
    y0, inner_top, inner_bottom = plot_h + 14, plot_h + 40, plot_h + diff_h - 16
    XD = lambda s: X(1) + (X(config.steps) - X(1)) * (s - stop) / (config.steps - stop)  # noqa: E731
    YD = lambda d: (inner_top + inner_bottom) / 2 - (inner_bottom - inner_top) / 2 * d / reach  # noqa: E731
    body.append(_text(12, y0 + 8, f"第 {stop} 步以后，每一次的损失减去不中断那次的损失", 12, fill=MUTED))
    for d in (-reach, 0, reach):
        body.append(f'<line x1="48" y1="{YD(d):.1f}" x2="{width - right}" y2="{YD(d):.1f}" '
                    f'stroke="{MUTED if d == 0 else "#e2d8c6"}"/>')
        body.append(_text(42, YD(d) + 4, "0" if d == 0 else f"{d:+.4f}".replace("-", "−"), 11, "end", MUTED))
    for s in range(stop, config.steps + 1, 2):
        body.append(_text(XD(s), inner_bottom + 14, str(s), 11, "middle", MUTED))
    for name, points in gaps.items():
        if name == "续训":
            body.extend(circle(XD(s), YD(d)) for s, d in points)
        else:
            color, dash = colors[name]
            body.append(_polyline(points, XD, YD, color, 1.8, dash))
    body.append(_text(width - 170, YD(0) + 4, f"续训：{config.steps - stop} 步全是 0" if all(
        d == 0 for _, d in gaps["续训"]) else "续训：不全是 0", 11, fill="#8c2f1b"))
    rows = [("weights", f"{len(weights)} 个名字、{len(unique)} 个张量，{n_params:,} 个参数", f"{weight_bytes:,} 字节"),
            ("optimizer", f"{len(state['optimizer']['state'])} 个参数各有 exp_avg、exp_avg_sq", f"{opt_bytes:,} 字节"),
            ("rng", f"torch 发生器 {state['rng']['torch'].numel()} 字节 + Python {len(state['rng']['python'])} 个整数",
             "dropout 用"),
            ("step", str(stop), "日程与取批"),
            ("vocab_hash", state["vocab_hash"], "汉字表指纹"),
            ("model_config", f"width={state['model_config']['width']}, n_layers={state['model_config']['n_layers']} …",
             "先建空模型"),
            ("train_config、log", f"{len(state['log'])} 条日志", "")]
    top = plot_h + diff_h + 30
    body.append(_text(12, top - 8, f"第 {stop} 步的存档 checkpoint.pt 里有什么（read_checkpoint 读回来数）", 12,
                      weight="bold"))
    for i, (name, what, note) in enumerate(rows):
        y = top + i * 26
        body.append(f'<rect x="12" y="{y}" width="{width - 24}" height="22" rx="3" fill="#fffdf8" stroke="#d9cfbd"/>')
        body.append(_text(22, y + 15, name, 12, weight="bold"))
        body.append(_text(150, y + 15, what, 12))
        body.append(_text(width - 22, y + 15, note, 11, "end", MUTED))
    y = top + len(rows) * 26 + 16
    body.append(_text(12, y, "因果遮挡 causal 是缓冲区（persistent=False）：不存，建模型时重新算出来", 11, fill=MUTED))
    height = int(y + 14)
    body[0] = f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>'                # 底色铺满整张图
    a, b = (variants["不放回优化器状态"], variants["不放回随机数状态"])
    steps = [
        f"与第 18 课实验同样的小训练：tiny 尺寸加 dropout {config.model['dropout']}，共 {config.steps} 步，"
        f"每 {config.eval_every} 步验证并存档。粗线是一口气训练完的每步损失。",
        f"另一次在第 {stop} 步停下、存档、退出，再读档续训（圆圈）：{config.steps} 步的损失"
        + ("一个不差，逐位相同" if same else "并不全同") + f"，第 {config.steps} 步的验证损失都是 "
        f"{straight[-1]['val']:.5f} / {resumed[-1]['val']:.5f}。下面一块画的是每一次减去不中断那次的差：续训的圆圈全在 0 上。",
        f"存档里放着接着训练要的一切：{n_params:,} 个参数（{weight_bytes:,} 字节，共用的表只存一份），"
        f"AdamW 的两份滑动平均（{opt_bytes:,} 字节，是权重的两倍），步数 {stop}，"
        f"随机数发生器的状态（torch {state['rng']['torch'].numel()} 字节、Python {len(state['rng']['python'])} 个整数）。",
        f"蓝色虚线：读档时换成新建的优化器，第 {stop + 2} 步起就岔开（{a[stop + 1]['loss']:.5f}，"
        f"不中断是 {straight[stop + 1]['loss']:.5f}），第 {config.steps} 步 {a[last]['loss']:.5f}。",
        f"灰色点线：不放回随机数状态，dropout 抽到的数就不同，第 {stop + 1} 步已是 {b[stop]['loss']:.5f}"
        f"（不中断 {straight[stop]['loss']:.5f}）：差得小，但不再逐位相同。",
    ]
    return Figure("存档与续训", _svg(width, height, "不中断与续训的损失曲线，以及存档里的各部分", body), steps)


# ---------- 第 19 课：训练与验证损失 ----------

def lesson19() -> Figure:
    """发布模型存档里的训练日志：每步的训练损失与每隔一段的验证损失（奈特/字）。"""
    curves = loss_curves()
    train, val = curves["train"], curves["val"]
    width, height, left, top, right, bottom = 640, 300, 48, 18, 16, 36
    x_max = max(s for s, _ in train)
    y_lo = min(v for _, v in train + val)
    y_hi = min(max(v for _, v in train + val), y_lo + 6)
    X = lambda s: left + (width - left - right) * s / x_max
    Y = lambda v: top + (height - top - bottom) * (1 - (min(v, y_hi) - y_lo) / (y_hi - y_lo))
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="#6b6155"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#6b6155"/>']
    for v in range(int(y_lo) + 1, int(y_hi) + 1):
        body.append(_text(left - 6, Y(v) + 4, str(v), 11, "end", "#6b6155"))
    body.append(_text(width - right, height - 10, f"步数（共 {x_max}）", 11, "end", "#6b6155"))
    # 训练损失每步一个点，太密：每 10 步取平均
    smooth = [(train[i][0], sum(v for _, v in train[i:i + 10]) / len(train[i:i + 10])) for i in range(0, len(train), 10)]
    for points, color, name in ((smooth, "#c9a27e", "训练"), (val, "#8c2f1b", "验证")):
        path = " ".join(f"{X(s):.1f},{Y(v):.1f}" for s, v in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
    body.append(_text(width - right - 4, top + 12, "浅色：训练（10 步平均）；深色：验证", 11, "end"))
    steps = [f"横轴是训练步数，纵轴是交叉熵（奈特/字）。训练损失从第 1 步的 {train[0][1]:.1f} 开始快速下降。",
             f"验证损失从第 {val[0][0]} 步的 {val[0][1]:.2f} 降到第 {val[-1][0]} 步的 {val[-1][1]:.2f}。",
             f"训练损失最后 10 步平均 {smooth[-1][1]:.2f}；两条线靠得越近，过拟合越轻。"]
    return Figure("发布模型的损失曲线", _svg(width, height, "训练与验证损失曲线", body), steps)


# ---------- 画折线图、横条的小工具 ----------

MUTED = "#6b6155"


def _plot(width: int, height: int, x_range: tuple[float, float], y_range: tuple[float, float],
          margin: tuple[int, int, int, int] = (18, 16, 40, 64)):
    """一块画图区：返回 (X, Y, body)。X、Y 把数据坐标换成像素；body 里已有底色与两条坐标轴。
    margin 是 (上, 右, 下, 左) 的留白（像素）。"""
    top, right, bottom, left = margin
    (x0, x1), (y0, y1) = x_range, y_range
    X = lambda x: left + (width - left - right) * (x - x0) / ((x1 - x0) or 1)   # noqa: E731
    Y = lambda y: top + (height - top - bottom) * (1 - (y - y0) / ((y1 - y0) or 1))  # noqa: E731
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="{MUTED}"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="{MUTED}"/>']
    return X, Y, body


def _polyline(points, X, Y, color: str, width: float = 2, dash: str = "") -> str:
    path = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in points)
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="{width}"{extra}/>'


def _dot(x: float, y: float, color: str = "#8c2f1b", r: float = 4) -> str:
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"/>'


def _bars(body: list[str], x0: float, y0: float, rows: list[tuple[str, float, bool]], bar_w: float,
          scale: float, row_h: int = 22, label_w: int = 30, digits: int = 3) -> float:
    """一组横条：rows 是 (标签, 数值, 是否描红)，数值 scale 画满 bar_w 像素。返回画完的高度。"""
    for i, (label, value, marked) in enumerate(rows):
        y = y0 + i * row_h
        color = "#8c2f1b" if marked else "#c9a27e"
        body.append(_text(x0 + label_w - 6, y + 15, label, 13, "end", weight="bold" if marked else "normal"))
        w = max(0.0, bar_w * value / scale) if scale else 0.0
        body.append(f'<rect x="{x0 + label_w:.1f}" y="{y + 3:.1f}" width="{w:.1f}" height="{row_h - 7}" rx="2" fill="{color}"/>')
        body.append(_text(x0 + label_w + w + 5, y + 15, f"{value:.{digits}f}", 11, fill=MUTED))
    return len(rows) * row_h


# ---------- 第 15 课：一个位置的交叉熵 ----------

def lesson15() -> Figure:
    """发布模型读 val 第一首诗（与第 15 课实验同一首、同一格）：前 8 个字与正确答案的概率，损失是 −ln p(答案)。"""
    from ..data import make_batch

    tok = default_tokenizer()
    model, _ = load_model()
    poem = load_poems("val", 512)[0]
    ids = encode_sample(poem, tok)
    x, y, _ = make_batch([ids])                                                # [1, T]
    t = ids.index(SEP) + 1                                                     # 正文第 1 个字读完，猜第 2 个
    with torch.no_grad():
        z = model(x[:, : t + 1])[0][0, t]                                      # [V]：因果模型，后文不影响这一格
    log_probs = torch.log_softmax(z, -1)
    answer = int(y[0, t])
    order = torch.topk(z, 8).indices.tolist()
    rank = int((z > z[answer]).sum()) + 1
    shown = order + ([answer] if answer not in order else [])
    width, row_h = 640, 24
    height = 46 + row_h * (len(shown) + 1) + 10
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"读到 {tok.decode(ids[: t + 1])}，下一个字的概率 p（softmax(logits)）；"
                          f"红条是正确答案“{tok.tokens[answer]}”", 12, fill=MUTED)]
    scale = log_probs.exp().max().item()
    rows = [(tok.tokens[j], log_probs[j].exp().item(), j == answer) for j in shown]
    gap = int(answer not in order)                                             # 答案不在前 8：中间空一行写 ⋮
    _bars(body, 12, 34, rows[: len(order)], width - 260, scale, row_h, 40, 4)
    _bars(body, 12, 34 + (len(order) + gap) * row_h, rows[len(order):], width - 260, scale, row_h, 40, 4)
    if gap:
        body.append(_text(46, 34 + len(order) * row_h + 15, "⋮", 13, "end", MUTED))
    for i, j in enumerate(shown):
        y = 34 + (i + (gap if j == answer else 0)) * row_h + 15
        body.append(_text(width - 12, y, f"−ln p = {-log_probs[j].item():.4f}", 11, "end",
                          "#8c2f1b" if j == answer else MUTED))
    loss = -log_probs[answer].item()
    steps = [
        f"发布模型读 val 第一首诗“{poem['text']}”的样本，到位置 {t}（{tok.decode(ids[: t + 1])}）为止，要猜下一个字，"
        f"正确答案是“{tok.tokens[answer]}”。",
        f"模型给 V = {len(tok)} 个编号各一个分数 logits，softmax 变成概率 p。横条是概率最高的 8 个字："
        f"“{tok.tokens[order[0]]}” {log_probs[order[0]].exp().item():.4f} 最高。",
        f"正确答案“{tok.tokens[answer]}”排第 {rank} 名，p = {log_probs[answer].exp().item():.4f}（红条）。",
        f"这个位置的损失只看答案那一格：−ln p = {loss:.4f} 奈特。p 越大损失越小，p = 1 时为 0；"
        "别的字的概率只通过“加起来是 1”影响它。",
        "一批里的损失是计入损失的每一格的 −ln p 求平均（条件区与补齐的格子不算），训练时就是把这个平均往下推。",
    ]
    return Figure("一个位置的交叉熵", _svg(width, height, "一个位置上前 8 个字与正确答案的概率横条", body), steps)


# ---------- 第 16 课：预热加余弦的学习率日程 ----------

def lesson16() -> Figure:
    """base 预设的 learning_rate(step)：第 0–3000 步，标出实验表里的几个关键步。"""
    from ..train import PRESETS, learning_rate

    base = PRESETS["base"]
    last = 3000                                               # 与实验的图一样画到第 3000 步
    low = base.lr * base.min_lr_ratio
    points = [(s, learning_rate(s, base)) for s in range(0, last + 1, 10)]
    width, height = 640, 300
    X, Y, body = _plot(width, height, (0, last), (0, base.lr), margin=(34, 16, 40, 64))
    for v in (0, low, base.lr / 2, base.lr):
        body.append(_text(58, Y(v) + 4, f"{v:.4g}", 11, "end", MUTED))
        body.append(f'<line x1="64" y1="{Y(v):.1f}" x2="{width - 16}" y2="{Y(v):.1f}" stroke="#e2d8c6"/>')
    body.append(_polyline(points, X, Y, "#8c2f1b"))
    warm_end, middle = base.warmup - 1, base.warmup + (base.steps - base.warmup) // 2
    marks = [(warm_end, "预热结束：峰值", 10, -8, "start"), (middle, "余弦走了一半", 10, -10, "start"),
             (base.steps, "降到最低值", -6, 17, "end")]
    for step, label, dx, dy, anchor in marks:
        lr = learning_rate(step, base)
        body.append(_dot(X(step), Y(lr)))
        body.append(_text(X(step) + dx, Y(lr) + dy, f"第 {step} 步 {lr:.6g}（{label}）", 11, anchor))
    for step in (0, 1000, 2000, last):
        body.append(_text(X(step), height - 22, str(step), 11, "middle", MUTED))
    body.append(_text(width - 16, height - 6, "第几步（从 0 数）", 11, "end", MUTED))
    body.append(_text(12, 14, "学习率", 11, fill=MUTED))
    steps = [
        f"横轴是第几步（从 0 数），纵轴是这一步的学习率，都由 poetry_gpt.train.learning_rate 按 base 预设算出："
        f"峰值 lr = {base.lr:g}，预热 {base.warmup} 步，共 {base.steps} 步。",
        f"预热：第 0 步是 lr/warmup = {learning_rate(0, base):.6g}（不是 0），之后每步加一点，"
        f"第 {warm_end} 步正好到峰值 {learning_rate(warm_end, base):.6g}。开头这一段太陡，图上几乎是一条竖线。",
        f"余弦：从第 {base.warmup} 步起按余弦往下走，第 {middle} 步走了一半，学习率 {learning_rate(middle, base):.6g}，"
        "正好在峰值与最低值的正中间。",
        f"最低值：第 {base.steps} 步降到 lr × min_lr_ratio = {low:g}；再往后（续训）一直停在这里。",
        "为什么这样排：开头模型的参数是随机的，大步走容易走飞，所以先慢后快；快结束时步子放小，损失才稳稳地落下来。",
    ]
    return Figure("base 预设的学习率日程", _svg(width, height, "学习率随步数变化的曲线", body), steps)


# ---------- 第 20 课：KV 缓存省下了什么 ----------

def lesson20() -> Figure:
    """发布模型从条件区 <bos> <5> 月 <sep> 贪心地写（与第 20 课实验第 1 部分同一首）：每一步送进模型的位置，
    整段重算（浅）与 KV 缓存（红）。"""
    from ..data import BOS, EOS, FIVE
    from ..model import KVCache

    tok = default_tokenizer()
    model, _ = load_model()
    model.eval()
    prompt = [BOS, FIVE] + tok.encode("月") + [SEP]
    cache, out = KVCache(model.config.n_layers), []
    with torch.no_grad():
        logits = model(torch.tensor([prompt]), kv_cache=cache)[0][0, -1]
        while True:
            token = int(logits.argmax())
            if token == EOS or len(prompt) + len(out) >= model.config.context_length:
                break
            out.append(token)
            logits = model(torch.tensor([[token]]), kv_cache=cache)[0][0, -1]
    steps_n = len(out) + 1                                                     # 最后一步选出 <eos>
    total = len(prompt) + len(out)
    cell, left, top = 18, 60, 46
    width = left + total * cell + 16
    height = top + steps_n * cell + 30
    labels = [tok.tokens[i] for i in prompt + out]
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 18, "每一行是一步，每一格是这一步送进模型的一个位置：浅色＝整段重算要算的，红＝KV 缓存真正要算的", 12,
                  fill=MUTED)]
    for j, name in enumerate(labels):
        body.append(_text(left + j * cell + cell / 2, top - 8, name if len(name) == 1 else "·", 11, "middle",
                          MUTED if j < len(prompt) else "#2b2620"))
    for s in range(steps_n):
        y = top + s * cell
        seen = len(prompt) + s                                                 # 这一步前文的长度
        if s % 4 == 0 or s == steps_n - 1:
            body.append(_text(left - 8, y + 13, f"第 {s} 步", 10, "end", MUTED))
        for j in range(seen):
            new = j >= (0 if s == 0 else seen - 1)
            body.append(f'<rect x="{left + j * cell}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                        f'fill="{"#8c2f1b" if new else "#e8dccb"}"/>')
    full = sum(len(prompt) + s for s in range(steps_n))
    cached = len(prompt) + steps_n - 1
    body.append(_text(left, height - 10, f"整段重算合计 {full} 个位置，KV 缓存合计 {cached} 个", 12, weight="bold"))
    steps = [
        f"发布模型从条件区 {' '.join(tok.tokens[i] for i in prompt)} 开始贪心地写（每步取分数最高的字），"
        f"写出“{tok.decode(out)}”，第 {steps_n - 1} 步选出 <eos> 停下。",
        "每一行是一步，格子是这一步要送进模型算的位置。整段重算每一步都把前文全部再送一遍（整行浅色加最后一格），"
        "所以是一个越来越宽的三角形。",
        f"KV 缓存：第 0 步算条件区的 {len(prompt)} 个位置，之后每步只送 1 个新字（红），前面各位置每层的 k、v 已经存在 KVCache 里。",
        f"合计：整段重算 {full} 个位置，KV 缓存 {cached} 个。前文越长，省下的越多；两种做法写出的诗相同。",
        f"前文最多 context_length = {model.config.context_length} 个位置：缓存满了就不能再往后写。",
    ]
    return Figure("KV 缓存省下了什么", _svg(width, height, "每一步整段重算与 KV 缓存要算的位置", body), steps)


# ---------- 第 21 课：温度、top-k、top-p 怎样改变一步的分布 ----------

@functools.cache
def _sampling_step():
    """与第 21 课实验同一步：发布模型、种子 26、关键词“月”、不加格式约束写的诗，第四句最后一个字之前。

    返回 (诗, 前文, 诗里实际写的字, logits [V], 汉字表)。"""
    from ..data import BOS, form_of
    from ..generate import write_one

    tok = default_tokenizer()
    model, _ = load_model()
    poem = write_one(model, tok, "月", seed=26, constrained=False)
    prefix, answer = poem.text[:-2], poem.text[-2]
    ids = [BOS, form_of(line_length=poem.form).token] + tok.encode("月") + [SEP] + tok.encode(prefix)
    with torch.no_grad():
        logits = model(torch.tensor([ids]))[0][0, -1]
    return poem, prefix, answer, logits, tok


def lesson21() -> Figure:
    """同一步的前 8 名：原始分布、温度 0.5 与 1.5、默认设置（温度 0.8 → top-k 40 → top-p 0.95）之后。"""
    from ..sampling import filter_logits

    poem, prefix, answer, logits, tok = _sampling_step()
    T, K, P = 0.8, 40, 0.95
    raw = torch.softmax(logits, -1)
    final = torch.softmax(filter_logits(logits / T, top_k=K, top_p=P), -1)
    kept_k = int(torch.isfinite(filter_logits(logits / T, top_k=K)).sum())
    kept_p = int(torch.isfinite(filter_logits(logits / T, top_k=K, top_p=P)).sum())
    order = torch.topk(raw, 8).indices.tolist()
    panels = [("原始（温度 1，不截断）", raw), ("温度 0.5：高的更高", torch.softmax(logits / 0.5, -1)),
              ("温度 1.5：拉平", torch.softmax(logits / 1.5, -1)),
              (f"默认：温度 {T:g} → top-k {K} → top-p {P:g}", final)]
    pane_w, row_h = 300, 22
    width, height = 2 * pane_w + 36, 2 * (8 * row_h + 34) + 16
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>']
    scale = max(p[order].max().item() for _, p in panels)
    for i, (title, probs) in enumerate(panels):
        x, y = 12 + (i % 2) * (pane_w + 12), 8 + (i // 2) * (8 * row_h + 34)
        body.append(_text(x, y + 14, title, 13, weight="bold"))
        rows = [(tok.tokens[t], probs[t].item(), tok.tokens[t] == answer) for t in order]
        _bars(body, x, y + 22, rows, pane_w - 80, scale, row_h)
    rank = lambda probs: int((probs > probs[tok.stoi[answer]]).sum()) + 1          # noqa: E731
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
    return Figure("温度与截断怎样改变一步的分布", _svg(width, height, "四种设置下前 8 个字的概率横条", body), steps)


# ---------- 第 22 课：掩码拿走了多少概率 ----------

def _forced_run(text: str, prompt: str, form: int, constraint):
    """发布模型读入条件区 prompt 与诗 text（逐字，KV 缓存，与 write_one 同样的调用），
    每一格记下 (这一格允许的编号 [V] bool, 模型在掩码之前的概率 [V])；constraint 每一格之后 advance。"""
    from ..data import BOS, EOS, form_of
    from ..model import KVCache

    tok = default_tokenizer()
    model, _ = load_model()
    model.eval()
    cache = KVCache(model.config.n_layers)
    out = []
    with torch.no_grad():
        logits = model(torch.tensor([[BOS, form_of(line_length=form).token] + tok.encode(prompt) + [SEP]]),
                       kv_cache=cache)[0][0, -1]
        for token in tok.encode(text) + [EOS]:
            out.append((constraint.allowed(), torch.softmax(logits, -1)))
            if token == EOS:
                break
            constraint.advance(token)
            logits = model(torch.tensor([[token]]), kv_cache=cache)[0][0, -1]
    return out


def lesson22() -> Figure:
    """第 22 课实验第 2 部分那首诗（关键词“月”、五言、种子 0、只守格式）：每一格允许的字占模型概率多少。"""
    from ..constraints import Constraint
    from ..generate import write_one
    from ..settings import PLAIN

    tok = default_tokenizer()
    model, _ = load_model()
    poem = write_one(model, tok, "月", form=5, seed=0, rules=PLAIN)
    run = _forced_run(poem.text, "月", 5, Constraint(tok, 5, "月", rules=PLAIN))
    mass = [probs[mask].sum().item() for mask, probs in run]
    labels = list(poem.text) + ["<eos>"]
    ends = {i for i, ch in enumerate(labels) if ch in "，。？！"}
    taken = [1 - m for m in mass]                              # 掩码拿走的概率：差别都在这里
    width, height = 640, 280
    hi = max(taken) * 1.15 or 1e-4
    X, Y, body = _plot(width, height, (-0.5, len(mass) - 0.5), (0, hi), margin=(18, 16, 46, 64))
    bar = (width - 80) / len(mass) * 0.7
    for v in (0, hi / 2, hi):
        body.append(_text(58, Y(v) + 4, f"{v:.5f}", 11, "end", MUTED))
    for i, (t, ch) in enumerate(zip(taken, labels)):
        color = "#8c2f1b" if i in ends else "#2f5d8c" if ch == "<eos>" else "#c9a27e"
        body.append(f'<rect x="{X(i) - bar / 2:.1f}" y="{Y(t):.1f}" width="{bar:.1f}" height="{Y(0) - Y(t):.1f}" '
                    f'fill="{color}"/>')
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
    return Figure("掩码拿走了多少概率", _svg(width, height, "每一格允许的字占模型概率的柱状图", body), steps)


# ---------- 第 23 课：被强制的藏头字，模型本来给它多少概率 ----------

def lesson23() -> Figure:
    """第 23 课实验那首藏头诗（春夏秋冬、五言、种子 0、只守格式）：每句第 0 格藏头字与模型最想写的字。"""
    from ..constraints import Constraint
    from ..generate import write_poems
    from ..settings import PLAIN

    tok = default_tokenizer()
    model, _ = load_model()
    poem = write_poems(model, tok, acrostic="春夏秋冬", form=5, seed=0, rules=PLAIN)[0]
    run = _forced_run(poem.text, poem.condition, 5, Constraint(tok, 5, "春夏秋冬", acrostic="春夏秋冬", rules=PLAIN))
    rows = []
    for line in range(4):
        _, probs = run[line * 6]
        ch = poem.text[line * 6]
        t = tok.stoi[ch]
        rows.append((ch, probs[t].item(), int((probs > probs[t]).sum()) + 1, tok.tokens[int(probs.argmax())],
                     probs.max().item()))
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
        *(f"第 {i} 句“{ch}”：模型给它 {p:.4f}，排第 {rank}；它最想写“{top}”（{top_p:.3f}）。"
          for i, (ch, p, rank, top, top_p) in enumerate(rows)),
        "红条越短，这一格越“被逼着”写；后面几格模型要接着这个字往下编，所以藏头诗比自由写的诗难读一些。",
    ]
    return Figure("被强制的藏头字", _svg(width, height, "藏头字与模型最想写的字的概率横条", body), steps)


# ---------- 第 24 课：平仄格式对照一首诗 ----------

SHAN_XING = "远上寒山石径斜，白云生处有人家。停车坐爱枫林晚，霜叶红于二月花。"
"""第 24 课实验第 2 部分逐字查的诗：杜牧《山行》。"""


def lesson24() -> Figure:
    """《山行》每个字：表里的平仄、最合的格式要的平仄、合不合，句尾字的韵部。"""
    from .. import prosody

    lines = split_lines(SHAN_XING)
    strict = prosody.tone_report(SHAN_XING)
    lenient = prosody.tone_report(SHAN_XING, lenient=True)
    rhyme = prosody.quatrain_rhyme(SHAN_XING)
    want = prosody.TEMPLATES[strict.template]
    short = lambda ch: {"平仄": "两", "未知": "？"}.get(prosody.tone_class(ch), prosody.tone_class(ch))  # noqa: E731
    cell, left, top, row_h = 58, 70, 40, 96
    width = left + cell * len(lines[0]) + 150
    height = top + row_h * 4 + 10
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 18, f"最合的格式：{strict.template}", 13, weight="bold"),
            _text(12, 34, "每格：诗里的字 / 表里查到的平仄 / 格式要的平仄；红底是不合", 11, fill=MUTED)]
    for i, (line, pattern, marks) in enumerate(zip(lines, want, strict.marks)):
        y = top + i * row_h
        body.append(_text(12, y + 36, f"第 {i + 1} 句", 12, fill=MUTED))
        for j, (ch, need, mark) in enumerate(zip(line, pattern, marks)):
            x = left + j * cell
            fill = "#f1d2c7" if mark == prosody.MISMATCH else "#fffdf8"
            body.append(f'<rect x="{x}" y="{y + 4}" width="{cell - 6}" height="{row_h - 14}" rx="4" fill="{fill}" '
                        f'stroke="#e2d8c6"/>')
            body.append(_text(x + (cell - 6) / 2, y + 32, ch, 22, "middle", weight="bold"))
            body.append(_text(x + (cell - 6) / 2, y + 54, f"表 {short(ch)}", 12, "middle", MUTED))
            body.append(_text(x + (cell - 6) / 2, y + 72, f"要 {need}", 12, "middle",
                              "#8c2f1b" if mark == prosody.MISMATCH else "#2b2620"))
        end = line[-1]
        groups = "、".join(prosody.rhyme_name(g) for g in prosody.rhyme_groups(end)) or "？"
        in_rhyme = i in (1, 3) or (i == 0 and rhyme.first_line)
        body.append(_text(left + cell * len(line) + 6, y + 36, f"{end}：{groups}", 13,
                          weight="bold" if in_rhyme else "normal", fill="#8c2f1b" if in_rhyme else MUTED))
        body.append(_text(left + cell * len(line) + 6, y + 54, "韵脚" if in_rhyme else "不押", 11, fill=MUTED))
    wrong = [(i + 1, j + 1, lines[i][j]) for i, marks in enumerate(strict.marks) for j, m in enumerate(marks)
             if m == prosody.MISMATCH]
    names = "、".join(prosody.rhyme_name(g) for g in rhyme.groups)
    steps = [
        f"诗：杜牧《山行》。每个字在 data/rhymes.json 里查出它属于平水韵的哪几个韵部，由韵部定平仄（prosody.tone_class）；"
        "“两”是平仄两读。",
        f"对格式：七言绝句有四种平仄格式，prosody.tone_report 逐字对照，取最合的一种：{strict.template}。"
        f"每字都论时 {strict.checked} 个字合 {strict.matched} 个，得分 {strict.score:.3f}。",
        "红底的格子不合：" + "、".join(f"第 {i} 句第 {j} 字“{ch}”" for i, j, ch in wrong)
        + ("——都在第一、三、五字上。" if all(j in (1, 3, 5) for _, j, _ in wrong) else "。"),
        f"宽式“一三五不论”：这几个位置不计分，得分 {lenient.score:.3f}。",
        f"押韵：第二、四句句尾“{lines[1][-1]}”“{lines[3][-1]}”共有韵部 {names}，押韵"
        + (f"；第一句“{lines[0][-1]}”也在这里，首句入韵。" if rhyme.first_line else "。")
        + f"第三句“{lines[2][-1]}”照例不押。",
    ]
    return Figure("平仄格式对照《山行》", _svg(width, height, "山行每个字的平仄与格式对照", body), steps)


# ---------- 第 12 课：GELU 与 ReLU ----------

GELU_POINTS = (-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0)
"""第 12 课实验“几种激活函数”表里的 x。"""


def lesson12() -> Figure:
    """torch 的 F.relu 与 F.gelu（精确、tanh 近似）在 [-3, 3] 上的曲线，标出 GELU 的最低点与实验表里的点。"""
    from torch.nn import functional as F

    grid = torch.linspace(-3, 3, 241, dtype=torch.float64)                    # [241]
    relu, gelu = F.relu(grid), F.gelu(grid)
    low = int(gelu.argmin())
    width, height = 640, 320
    X, Y, body = _plot(width, height, (-3, 3), (-0.5, 3), margin=(20, 16, 40, 56))
    for v in (-0.5, 0, 1, 2, 3):
        body.append(_text(48, Y(v) + 4, f"{v:g}", 11, "end", MUTED))
        body.append(f'<line x1="56" y1="{Y(v):.1f}" x2="{width - 16}" y2="{Y(v):.1f}" stroke="#e2d8c6"/>')
    for v in (-3, -2, -1, 0, 1, 2, 3):
        body.append(_text(X(v), height - 22, f"{v:g}", 11, "middle", MUTED))
    body.append(_polyline(zip(grid.tolist(), relu.tolist()), X, Y, "#2f5d8c", 2, "6 4"))
    body.append(_polyline(zip(grid.tolist(), gelu.tolist()), X, Y, "#8c2f1b", 2.5))
    points = [(x, F.relu(torch.tensor(x)).item(), F.gelu(torch.tensor(x)).item()) for x in GELU_POINTS]
    for x, _, g in points:
        body.append(_dot(X(x), Y(g), r=3.5))
    body.append(_dot(X(grid[low].item()), Y(gelu[low].item()), "#2b2620", 4))
    body.append(_text(X(grid[low].item()), Y(gelu[low].item()) + 20, f"最低点 x = {grid[low].item():.2f}，"
                      f"GELU = {gelu[low].item():.4f}", 11, "middle"))
    body.append(_text(70, 30, "— GELU（精确）", 12, fill="#8c2f1b", weight="bold"))
    body.append(_text(70, 48, "- - ReLU", 12, fill="#2f5d8c", weight="bold"))
    body.append(_text(width - 16, height - 6, "x", 11, "end", MUTED))
    tanh_gap = (gelu - F.gelu(grid, approximate="tanh")).abs().max().item()
    fmt = lambda x, g: f"GELU({x:.4f}) = {g:.4f}"                              # noqa: E731
    steps = [
        "横轴是输入 x，纵轴是激活之后的值；实线是 GELU（torch.nn.functional.gelu，精确的 erf 写法），虚线是 ReLU。",
        "右边两条线几乎重合：x 大时 GELU(x) ≈ x，和 ReLU 一样把数原样放过去。",
        f"左边不同：ReLU 把负数一律变成 0，GELU 留下一点负值，最低处在 x = {grid[low].item():.2f}，"
        f"约 {gelu[low].item():.4f}，再往左慢慢回到 0。",
        "红点是实验表里的 x：" + "；".join(fmt(x, g) for x, _, g in points) + "。",
        f"GELU(x) = x·Φ(x)：Φ(x) 是 x 被保留的比例，x = 0 时正好一半。tanh 近似在 [-3, 3] 上与精确写法最多差 "
        f"{tanh_gap:.6f}，画在图上看不出来。",
    ]
    return Figure("GELU 与 ReLU", _svg(width, height, "GELU 与 ReLU 的曲线", body), steps)


# ---------- 第 13 课：残差流与先归一化的 Block ----------

def lesson13() -> Figure:
    """与第 13 课实验相同的种子、新建模型与 8 首 val 诗：残差流穿过 4 个 Block，每层后的标准差；
    第一个 Block 里注意力、MLP 加上的修改有多大。"""
    from ..data import make_batch

    with torch.random.fork_rng():
        torch.manual_seed(COURSE_SEED)                                         # 与实验开头的 setup_experiment() 同一个种子
        tok = default_tokenizer()
        model = PoetryGPT(ModelConfig(vocab_size=len(tok))).eval()
    ids, _, _ = make_batch([encode_sample(p, tok) for p in load_poems("val")[:8]])   # [8, T]
    with torch.no_grad():
        x = model.characters(ids) + model.positions(torch.arange(ids.shape[1]))      # [8, T, C]
        b0 = model.blocks[0]
        attn = b0.attention(b0.norm1(x))
        mlp = b0.mlp(b0.norm2(x + attn))
        ratios = [(attn.norm() / x.norm()).item(), (mlp.norm() / (x + attn).norm()).item()]
        z, stds = x, [x.std().item()]
        for block in model.blocks:
            z = block(z)
            stds.append(z.std().item())
    n = len(model.blocks)
    width, height, left = 640, 250, 30
    seg = (width - left - 60) / n
    line_y = 70
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, "残差流（粗线）穿过 4 个 Block；每个 Block：norm1 → attention → 加回，norm2 → mlp → 加回", 12,
                  fill=MUTED),
            f'<line x1="{left}" y1="{line_y}" x2="{width - 30}" y2="{line_y}" stroke="#8c2f1b" stroke-width="5"/>',
            _text(width - 26, line_y + 5, "▶", 14, fill="#8c2f1b")]
    for i in range(n):
        x0 = left + 20 + i * seg
        for k, (norm, sub) in enumerate((("norm1", "attention"), ("norm2", "mlp"))):
            bx = x0 + k * seg / 2
            body.append(f'<line x1="{bx:.1f}" y1="{line_y}" x2="{bx:.1f}" y2="{line_y + 40}" stroke="{MUTED}"/>')
            body.append(f'<rect x="{bx - 4:.1f}" y="{line_y + 40}" width="{seg / 2 - 10:.1f}" height="44" rx="4" '
                        f'fill="#fffdf8" stroke="#d9cfbd"/>')
            body.append(_text(bx + seg / 4 - 9, line_y + 58, norm, 10, "middle", MUTED))
            body.append(_text(bx + seg / 4 - 9, line_y + 75, sub, 10, "middle"))
            end = bx + seg / 2 - 18
            body.append(f'<line x1="{end:.1f}" y1="{line_y + 40}" x2="{end:.1f}" y2="{line_y + 8}" stroke="{MUTED}"/>')
            body.append(_text(end, line_y + 5, "⊕", 14, "middle", "#8c2f1b"))
        body.append(_text(x0 - 6 + seg / 2 * 0, line_y - 14, f"层 {i}", 11, fill=MUTED))
    for i, s in enumerate(stds):
        xs = left + 6 + i * seg if i < n else width - 40
        body.append(_text(xs, height - 40 if i % 2 == 0 else height - 24, f"{'输入' if i == 0 else f'{i} 层后'} {s:.4f}",
                          11, "start" if i < n else "end"))
    body.append(_text(left, line_y + 104, f"层 0 加上的修改 / 残差流的大小：attention {ratios[0]:.4f}，mlp {ratios[1]:.4f}",
                      11, fill="#8c2f1b"))
    body.append(_text(12, height - 58, "残差流的标准差：", 11, fill=MUTED))
    steps = [
        f"与第 13 课实验一样：新建的默认模型（种子 {COURSE_SEED}，还没训练），val 里前 8 首诗排成一批，"
        f"查表加位置得到 [B, T, C] = {list(x.shape)}，从左边进入残差流（粗线）。",
        "每个 Block 从残差流上分出两条支路：先 norm1（LayerNorm）归一化一份副本，注意力读它、算出修改，在 ⊕ 处加回；"
        "再 norm2 → mlp → 加回。残差流本身不被归一化，也不被替换。",
        f"第一个 Block 里，注意力加上的修改是残差流大小的 {ratios[0]:.4f}，MLP 的是 {ratios[1]:.4f}："
        "修改是加上去的，原来的残差流一个数也没丢。",
        "残差流的标准差一层层慢慢变大：" + " → ".join(f"{s:.4f}" for s in stds) + "。没有残差时信号会一层层缩没"
        "（实验表里“都没有”那一行），有了残差和 LayerNorm 才稳定。",
        "这种先归一化、再进子层的写法叫 pre-norm（GPT-2 起的做法）；最后还有一个 LayerNorm，之后才乘回输出层。",
    ]
    return Figure("残差流与先归一化的 Block", _svg(width, height, "残差流穿过四个 Block 的示意图与每层后的标准差", body),
                  steps)


# ---------- 第 14 课：参数都在哪 ----------

def lesson14() -> Figure:
    """默认配置的新建 PoetryGPT，parameter_counts() 各部分的参数个数（与第 14 课实验的表同一个函数）。"""
    tok = default_tokenizer()
    with torch.random.fork_rng():
        model = PoetryGPT(ModelConfig(vocab_size=len(tok)))
    counts = model.parameter_counts()
    total = model.num_parameters()
    config = model.config
    width, row_h = 640, 30
    height = 44 + row_h * len(counts) + 10
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"默认配置：V = {config.vocab_size}，C = {config.width}，{config.n_layers} 层；"
                          f"共 {total} 个参数（输出层与 characters 共用一张表，不另算）", 12, fill=MUTED)]
    top = max(counts.values())
    for i, (name, n) in enumerate(counts.items()):
        y = 36 + i * row_h
        w = (width - 280) * n / top
        body.append(_text(120, y + 19, name, 13, "end", weight="bold" if n == top else "normal"))
        body.append(f'<rect x="128" y="{y + 5}" width="{max(w, 1.5):.1f}" height="{row_h - 10}" rx="2" '
                    f'fill="{"#8c2f1b" if n == top else "#c9a27e"}"/>')
        body.append(_text(128 + max(w, 1.5) + 6, y + 19, f"{n}（{n / total:.1%}）", 12, fill=MUTED))
    share = lambda k: f"{counts[k] / total:.1%}"                               # noqa: E731
    steps = [
        f"每根横条是模型的一部分，长度是参数个数，由 PoetryGPT.parameter_counts() 数出来，合计 {total}"
        f"（= num_parameters()）。",
        f"最大的是汉字表 characters：V × C = {config.vocab_size} × {config.width} = {counts['characters']}，"
        f"占 {share('characters')}。字表大、模型窄，所以一半多的参数都在查表上。",
        f"{config.n_layers} 个 Block 里，mlp 共 {counts['mlp']}（{share('mlp')}），attention 共 {counts['attention']}"
        f"（{share('attention')}）：MLP 先放宽到 4C 再收回，参数约是注意力的两倍。",
        f"positions 只有 L × C = {config.context_length} × {config.width} = {counts['positions']}，"
        f"norms（各层 LayerNorm 的缩放与偏移）{counts['norms']}，都不到 1%。",
        f"输出层 head 与 characters 是同一张表：如果另开一张，参数会多 {counts['characters']} 个。",
    ]
    return Figure("默认模型的参数都在哪", _svg(width, height, "PoetryGPT 各部分参数个数的横条", body), steps)


# ---------- 第 25 课：评估表里的几行，模型对照人写的诗 ----------

EVAL_ROWS = (("rhyme", "押韵（两字不同）"), ("tone_score", "平仄得分（宽式）"), ("nian_dui", "粘对全合"),
             ("char_3", "有字用了 3 次以上"))
"""第 25 课的图画 ./poet eval 记录里的这几行（键, 名字）。"""


def lesson25() -> Figure:
    """记下的 ./poet eval（figures/eval.json、eval-plain.json，构建时不重跑评估）：
    默认解码、--plain 与 val 里人写的诗，五言、七言各一组横条。"""
    from ..common import ROOT, read_json

    default = read_json(ROOT / "figures" / "eval.json")
    plain = read_json(ROOT / "figures" / "eval-plain.json")
    sources = [("默认", default["reader"]), ("--plain", plain["reader"]), ("人写", default["human"])]
    pane_w, row_h = 300, 21
    pane_h = 24 + 2 * len(sources) * row_h + 10
    width, height = 2 * pane_w + 36, 2 * pane_h + 16
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>']
    for i, (key, name) in enumerate(EVAL_ROWS):
        x, y = 12 + (i % 2) * (pane_w + 12), 8 + (i // 2) * pane_h
        body.append(_text(x, y + 14, name, 13, weight="bold"))
        rows = [(f"{form} {who}", table[form][key], who == "人写") for form in ("五言", "七言")
                for who, table in sources]
        _bars(body, x, y + 22, rows, pane_w - 150, 1.0, row_h, 90)
    r = lambda src, key: " / ".join(f"{src[f][key]:.3f}" for f in ("五言", "七言"))      # noqa: E731
    steps = [
        f"数来自记下的 ./poet eval --json（figures/eval.json）与 ./poet eval --plain --json（eval-plain.json）："
        f"{default['prompts']} 个提示写的诗，每种体裁 {default['reader']['五言']['poems']} 首；"
        f"人写的是 val 里五言、七言各 {default['human']['五言']['poems']} 首。构建网站时不重跑评估。",
        "每一格是评估表的一行，每组六根横条：五言、七言各三根——默认解码、关掉诗律规则的 --plain、人写（描红）。"
        "横条画满是 1。",
        f"押韵（两字不同）：默认 {r(default['reader'], 'rhyme')}，--plain {r(plain['reader'], 'rhyme')}，"
        f"人写 {r(default['human'], 'rhyme')}。默认的 100% 是解码器在句尾只许押韵的字做到的。",
        f"平仄（宽式）：默认 {r(default['reader'], 'tone_score')}，--plain {r(plain['reader'], 'tone_score')}，"
        f"人写 {r(default['human'], 'tone_score')}；粘对全合：人写 {r(default['human'], 'nian_dui')}。",
        f"有字用了 3 次以上（越短越好）：默认 {r(default['reader'], 'char_3')}，--plain {r(plain['reader'], 'char_3')}，"
        f"人写 {r(default['human'], 'char_3')}：关掉重复控制，模型一大半的诗都在反复用同一个字。",
    ]
    return Figure("评估表：模型对照人写的诗", _svg(width, height, "评估表几行的横条：默认、--plain 与人写", body), steps)


# ---------- 第 26 课：参数预算花在哪里 ----------

BUDGETS = (250_000, 500_000, 1_000_000, 1_655_552, 3_000_000, 10_000_000)
"""第 26 课实验第 1 部分的参数预算（前文长度 64、4 层、4 头）。"""


def _sized(width: int, n_layers: int = 4, n_heads: int = 4) -> PoetryGPT:
    """只为数参数建的模型（默认汉字表与前文长度）。"""
    with torch.random.fork_rng():
        return PoetryGPT(ModelConfig(vocab_size=len(default_tokenizer()), width=width, n_layers=n_layers,
                                     n_heads=n_heads))


@functools.cache
def _count_formula(n_layers: int, n_heads: int) -> tuple[float, float, float]:
    """num_parameters() 是宽度 C 的二次式 aC² + bC + c（表 V·C、L·C，每层 12C² + 13C，最后的 LayerNorm 2C）：
    用三个小模型的 num_parameters() 定出 (a, b, c)。"""
    xs = [n_heads, 2 * n_heads, 3 * n_heads]
    ys = [_sized(x, n_layers, n_heads).num_parameters() for x in xs]
    a = (ys[2] - 2 * ys[1] + ys[0]) / (2 * n_heads ** 2)                       # 二阶差分
    b = (ys[1] - ys[0]) / n_heads - a * (xs[0] + xs[1])
    return a, b, ys[0] - a * xs[0] ** 2 - b * xs[0]


def _model_for(budget: int, n_layers: int = 4, n_heads: int = 4) -> PoetryGPT:
    """宽度能被头数整除、num_parameters() 不超过预算的最大模型（第 26 课的练习）；
    宽度按二次式解，只建选中的那一个，并核对它的参数个数。"""
    a, b, c = _count_formula(n_layers, n_heads)
    count = lambda w: round(a * w * w + b * w + c)                             # noqa: E731
    width = n_heads
    while count(width + n_heads) <= budget:
        width += n_heads
    model = _sized(width, n_layers, n_heads)
    assert model.num_parameters() == count(width) <= budget, "参数个数不是宽度的二次式"
    return model


def lesson26() -> Figure:
    """每个预算选出的宽度，参数分成字向量表、位置表、全部 Block 三段（各段用 PoetryGPT 的参数数出来）。"""
    rows = []
    for budget in BUDGETS:
        model = _model_for(budget)
        total = model.num_parameters()
        parts = [model.characters.weight.numel(), model.positions.weight.numel(),
                 sum(p.numel() for p in model.blocks.parameters())]
        rows.append((budget, model.config.width, total, parts))
    width, row_h, left = 640, 40, 110
    height = 48 + row_h * len(rows) + 30
    body = [f'<rect width="{width}" height="{height}" fill="#fbf8f1"/>',
            _text(12, 20, f"每个预算选出的宽度 C（4 层、4 头、L = {model.config.context_length}）；每条按份额分成三段", 12,
                  fill=MUTED)]
    colors = ("#8c2f1b", "#2f5d8c", "#c9a27e")
    bar_w = width - left - 20
    for i, (budget, C, total, parts) in enumerate(rows):
        y = 34 + i * row_h
        body.append(_text(left - 8, y + 14, f"{budget:,}", 12, "end", weight="bold"))
        body.append(_text(left - 8, y + 29, f"C = {C}", 11, "end", MUTED))
        x = left
        for part, color in zip(parts, colors):
            w = bar_w * part / total
            body.append(f'<rect x="{x:.1f}" y="{y + 4}" width="{w:.1f}" height="{row_h - 14}" fill="{color}"/>')
            x += w
        body.append(_text(left + 6, y + 22, f"{parts[0] / total:.0%}", 11, fill="#fffdf8"))
        body.append(_text(left + bar_w - 6, y + 22, f"{parts[2] / total:.0%}", 11, "end"))
    y = 34 + len(rows) * row_h + 12
    for k, (name, color) in enumerate(zip(("字向量表 V·C", "位置表 L·C", "全部 Block"), colors)):
        body.append(f'<rect x="{left + k * 150}" y="{y - 10}" width="12" height="12" fill="{color}"/>')
        body.append(_text(left + k * 150 + 18, y, name, 12))
    share = {b: parts[0] / total for b, _, total, parts in rows}
    steps = [
        "每一行是一个参数预算：先找出能被头数 4 整除、参数个数（PoetryGPT.num_parameters()）不超过预算的最大宽度 C，"
        "再把这个模型的参数分成字向量表、位置表和全部 Block 三段，按份额画成一条。",
        f"预算小时，大半参数在字向量表里：25 万的预算只能给 C = {rows[0][1]}，字向量表占 {share[BUDGETS[0]]:.0%}，"
        "真正做计算的 Block 只分到一小段。",
        f"表的大小随 C 线性增长（V·C），Block 随 C² 增长（每层约 12C²），预算越大 Block 越占上风："
        f"1000 万时 C = {rows[-1][1]}，Block 占 {rows[-1][3][2] / rows[-1][2]:.0%}。",
        f"随课程的默认模型 C = 128 正好用掉 {BUDGETS[3]:,} 个参数，字向量表 {share[BUDGETS[3]]:.0%}，大约一半一半。",
        "位置表 L·C 一直不到 1%（蓝色的细条）。",
    ]
    return Figure("参数预算花在哪里", _svg(width, height, "不同参数预算下字向量表、位置表与 Block 的份额", body), steps)


FIGURES: dict[int, Callable[[], Figure]] = {
    1: lesson01, 2: lesson02, 3: lesson03, 4: lesson04, 5: lesson05, 6: lesson06, 7: lesson07, 8: lesson08,
    9: lesson09, 10: lesson10, 11: lesson11, 12: lesson12, 13: lesson13, 14: lesson14, 15: lesson15, 16: lesson16,
    17: lesson17, 18: lesson18, 19: lesson19, 20: lesson20, 21: lesson21, 22: lesson22, 23: lesson23, 24: lesson24,
    25: lesson25, 26: lesson26}
"""课号 → 画图函数。只有写好的课才会调用它的画图函数。"""
