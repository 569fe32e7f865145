"""怎样评价一首诗、一个模型（第 25 课）：格式、关键词、抄袭率、distinct-2，以及读者会注意到的那些数。

``./poet eval`` 把它们串起来的是 :func:`poetry_gpt.evaluation.evaluate_model`。
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import torch

from .common import COURSE_SEED
from .data import (
    FUNCTION_CHARS,
    BadRecord,
    Tokenizer,
    clean_record,
    default_tokenizer,
    form_of,
    is_hanzi,
    keywords_for,
    load_poems,
    split_lines,
)
from .settings import DISTINCT_POEMS, EVAL_PROMPTS, STOCK_OPENINGS


def format_ok(text: str, form: int | None = None) -> bool:
    """text 是否是一首合格的绝句：用建语料时同一套规则（data.clean_record）检查——正好四句、
    每句 form（5 或 7；None 表示两者皆可）个汉字、每句以 ，。？！ 之一结尾，此外没有别的符号。"""
    try:
        record = clean_record({"text": text}, convert=str)
    except BadRecord:
        return False
    return record["text"] == text and (form is None or form_of(name=record["form"]).line_length == form)


def keyword_hit(text: str, keywords: Sequence[str]) -> bool:
    """给定的每个字是否都出现在诗里。"""
    return all(k in text for k in keywords)


@lru_cache(maxsize=1)
def train_lines() -> frozenset[str]:
    """train 里出现过的每一句（不带标点）。"""
    return frozenset(line for p in load_poems("train") for line in split_lines(p["text"]))


def copy_rate(texts: Sequence[str], known: frozenset[str] | None = None) -> float:
    """诗句中与训练集某一句一字不差的比例（0–1）。"""
    known = train_lines() if known is None else known
    lines = [line for text in texts for line in split_lines(text)]
    return sum(line in known for line in lines) / max(len(lines), 1)


def distinct_n(texts: Sequence[str], n: int = 2) -> float:
    """distinct-n：所有诗的正文里，不同的 n 字组合占全部 n 字组合的比例（0–1，越高越不重复）。

    只在每句之内取 n 字组合，不跨标点。参见 Li et al., "A Diversity-Promoting Objective
    Function for Neural Conversation Models", 2016。
    """
    grams = [line[i : i + n] for text in texts for line in split_lines(text) for i in range(len(line) - n + 1)]
    return len(set(grams)) / max(len(grams), 1)


def char_repeats(text: str) -> int:
    """一首诗里用得最多的那个字用了几次（只看正文，不算标点）。"""
    body = "".join(split_lines(text))
    return max(Counter(body).values(), default=0)


def bigram_repeat(text: str) -> bool:
    """同一个两字组合（两个字在同一句里相邻）在一首诗里是否出现了两次以上，如两句都有“不见”。

    叠字（萧萧）只是一个两字组合，不算；跨过标点的两个字不算组合。
    """
    grams = [line[i : i + 2] for line in split_lines(text) for i in range(len(line) - 1)]
    return len(grams) != len(set(grams))


def reused_lines(texts: Sequence[str]) -> float:
    """诗句中一字不差地也出现在这组里另一首诗的比例（0–1）：各诗共用的套话句。"""
    owners: dict[str, set[int]] = {}
    for i, text in enumerate(texts):
        for line in split_lines(text):
            owners.setdefault(line, set()).add(i)
    lines = [line for text in texts for line in split_lines(text)]
    return sum(len(owners[line]) > 1 for line in lines) / max(len(lines), 1)


def keyword_counts(text: str, keywords: Sequence[str]) -> list[int]:
    """每个给定的字在正文里出现几次。"""
    body = "".join(split_lines(text))
    return [body.count(k) for k in keywords]


def keyword_twice(texts: Sequence[str], keywords: Sequence[Sequence[str]]) -> float:
    """有给定的字出现两次以上的诗的比例（0–1）：人给一个字，期待的是“这首诗写它”，不是把它写两遍。"""
    return sum(max(keyword_counts(t, kw), default=0) >= 2 for t, kw in zip(texts, keywords)) / max(len(texts), 1)


def line_repeat(text: str) -> bool:
    """有没有哪一句里同一个字用了两次（叠字“萧萧”也算）。"""
    return any(len(set(line)) < len(line) for line in split_lines(text))


@lru_cache(maxsize=1)
def attested_doubles() -> frozenset[str]:
    """训练诗里至少 :data:`DOUBLE_MIN` 首用过的叠字（萧萧、依依……）。"""
    counts = Counter(
        line[i]
        for p in load_poems("train")
        for line in split_lines(p["text"])
        for i in range(len(line) - 1)
        if line[i] == line[i + 1]
    )
    return frozenset(ch for ch, n in counts.items() if n >= DOUBLE_MIN)


DOUBLE_MIN = 3
"""叠字算“语料里有”的最少首数：只见过一两次的叠字多半是抄错或偶然。"""


def unattested_double(text: str, doubles: frozenset[str] | None = None) -> bool:
    """有没有语料里不这样叠的叠字（“菊菊”；“萧萧”是语料里有的，不算）。"""
    doubles = attested_doubles() if doubles is None else doubles
    return any(
        line[i] == line[i + 1] and line[i] not in doubles for line in split_lines(text) for i in range(len(line) - 1)
    )


def stock_opening_share(texts: Sequence[str]) -> float:
    """以 :data:`STOCK_OPENINGS` 之一开头的句子的比例（0–1）。"""
    lines = [line for t in texts for line in split_lines(t)]
    return sum(line[:2] in STOCK_OPENINGS for line in lines) / max(len(lines), 1)


def char_share(texts: Sequence[str], ch: str = "不") -> float:
    """ch 占全部正文字数的比例（0–1）。"""
    body = "".join(line for t in texts for line in split_lines(t))
    return body.count(ch) / max(len(body), 1)


def drawn_keyword(text: str, seed: int, tokenizer: Tokenizer | None = None) -> list[str]:
    """人写的诗的“关键词”：像训练时一样，在诗里的实字中按 IDF 抽一个（batches.draw_keywords，种子 seed）。"""
    import random

    from .batches import draw_keywords, keyword_candidates

    tok = tokenizer or default_tokenizer()
    ids, weights = keyword_candidates(text, tok)
    return [tok.tokens[i] for i in draw_keywords(ids, weights, 1, random.Random(seed))]


def human_poems(form: int, n: int, seed: int = COURSE_SEED) -> list[str]:
    """val 里按 seed 随机取的 n 首 form 言绝句（不够 n 首时全取）：与模型的诗并排比较的人写的诗。"""
    poems = [p["text"] for p in load_poems("val") if form_of(name=p["form"]).line_length == form]
    order = torch.randperm(len(poems), generator=torch.Generator().manual_seed(seed))[:n]
    return [poems[i] for i in order.tolist()]


def reader_report(
    texts: Sequence[str], keywords: Sequence[Sequence[str]] | None = None, distinct_poems: int = DISTINCT_POEMS
) -> dict:
    """读者会注意到的数字（第 24、25 课），一组诗（同一体裁）一份。

    Args:
        texts: 带标点的诗；不合格式的诗不计押韵、平仄、粘对（那几项的分母只算合格的诗）。
        keywords: 与 texts 对应的关键词；None 时不报关键词几项（人写的诗）。
        distinct_poems: distinct-2 只用前这么多首（不够时为 None）。

    Returns:
        dict（比例都是 0–1）：poems；rhyme（二、四句押韵且句尾是两个不同的字）；same_character_rhyme
        （二、四句用同一个字收尾）；tone_score（宽式平仄得分的平均，一三五不论）；tone_score_strict；
        nian_dui（粘对三处全合的诗的比例）；char_3（有字用了 3 次以上的诗）；bigram_repeat（有两字组合
        出现两次以上的诗，见 :func:`bigram_repeat`）；reused_lines（见 :func:`reused_lines`）；line_repeat
        （有一句里同一个字用了两次的诗）；unattested_double（有语料里不叠的叠字的诗）；bu_share（“不”占正文的
        比例）；stock_openings（以套语开头的句子，:data:`STOCK_OPENINGS`）；distinct_2；
        给了 keywords 时还有 keyword_hit（给定的字都出现）与 keyword_counts（每个给定的字出现 0、1、2、3 次
        以上各占的比例）、keyword_3（有给定的字出现 3 次以上的诗）、keyword_twice（:func:`keyword_twice`）。
    """
    from . import prosody

    n = max(len(texts), 1)
    regular = [t for t in texts if format_ok(t) and len(split_lines(t)[0]) in (5, 7)]
    m = max(len(regular), 1)
    rhymes = [prosody.quatrain_rhyme(t) for t in regular]
    report = {
        "poems": len(texts),
        "rhyme": sum(r.rhymes and not r.same_character for r in rhymes) / m,
        "same_character_rhyme": sum(r.same_character for r in rhymes) / m,
        "tone_score": sum(prosody.tone_score(t, lenient=True) for t in regular) / m,
        "tone_score_strict": sum(prosody.tone_score(t) for t in regular) / m,
        "nian_dui": sum(all(link.ok for link in prosody.nian_dui(t)) for t in regular) / m,
        "char_3": sum(char_repeats(t) >= 3 for t in texts) / n,
        "bigram_repeat": sum(bigram_repeat(t) for t in texts) / n,
        "reused_lines": reused_lines(texts),
        "line_repeat": sum(line_repeat(t) for t in texts) / n,
        "unattested_double": sum(unattested_double(t) for t in texts) / n,
        "bu_share": char_share(texts, "不"),
        "stock_openings": stock_opening_share(texts),
        "distinct_2": distinct_n(texts[:distinct_poems]) if len(texts) >= distinct_poems else None,
    }
    if keywords is not None:
        counts = [c for t, kw in zip(texts, keywords) for c in keyword_counts(t, kw)]
        report["keyword_hit"] = sum(keyword_hit(t, kw) for t, kw in zip(texts, keywords)) / n
        report["keyword_counts"] = [sum(min(c, 3) == k for c in counts) / max(len(counts), 1) for k in range(4)]
        report["keyword_3"] = sum(max(keyword_counts(t, kw), default=0) >= 3 for t, kw in zip(texts, keywords)) / n
        report["keyword_twice"] = keyword_twice(texts, keywords)
    return report


def common_keywords(n: int = 50, tokenizer: Tokenizer | None = None) -> list[str]:
    """写诗的人最常给的那类字：训练诗里出现在最多首诗里的 n 个汉字（跳过虚字，data.FUNCTION_CHARS）。"""
    tok = tokenizer or default_tokenizer()
    order = sorted(range(len(tok)), key=lambda i: -tok.doc_freq[i])
    return [
        tok.tokens[i]
        for i in order
        if tok.tokens[i] in tok and is_hanzi(tok.tokens[i]) and tok.tokens[i] not in FUNCTION_CHARS
    ][:n]


def eval_prompts(n: int = EVAL_PROMPTS) -> list[tuple[str, int]]:
    """n 个固定的提示 (关键词, 体裁)：50 个常用字（:func:`common_keywords`）每个依次配五言、七言，
    一轮 100 个，再来一轮（写诗时种子不同）——n = 200 时是 50 字 × 2 体裁 × 2 个种子，五言、七言各 100 首。"""
    keywords = common_keywords(50)
    return [(kw, form) for _ in range(-(-n // 100)) for kw in keywords for form in (5, 7)][:n]


def special_prompts(n: int = 40, seed: int = COURSE_SEED) -> dict[str, list[tuple[str, int]]]:
    """藏头与四个关键词的固定提示，各 n 个、五言七言交替：按 seed 从 val 里抽诗，
    藏头字取四句的第一个字，四个关键词取 data.keywords_for(k=4)。

    Returns:
        {"acrostic": [(藏头字, 体裁)…], "four_keywords": [(四个字, 体裁)…]}。
    """
    tok = default_tokenizer()
    poems = load_poems("val")
    order = torch.randperm(len(poems), generator=torch.Generator().manual_seed(seed)).tolist()
    heads = ("".join(line[0] for line in split_lines(poems[i]["text"])) for i in order)
    fours = ("".join(keywords_for(poems[i], tok, k=4)) for i in order)
    pick = lambda items: [x for x in items if len(x) == 4 and all(c in tok for c in x)]  # noqa: E731
    heads, fours = pick(heads), pick(fours)
    return {
        "acrostic": [(a, 5 + 2 * (i % 2)) for i, a in enumerate(heads[:n])],
        "four_keywords": [(k, 5 + 2 * (i % 2)) for i, k in enumerate(fours[:n])],
    }


def poem_report(text: str) -> dict:
    """一首诗的押韵、平仄、粘对与重复（``./poet write --json`` 每首诗带的 "prosody"），只含可写成 JSON 的值。

    不是四句等长的五言、七言诗时，押韵、平仄、粘对三项为 None。
    """
    from dataclasses import asdict

    from . import prosody

    report = {
        "rhyme": None,
        "tones": None,
        "tones_strict": None,
        "nian_dui": None,
        "most_uses": char_repeats(text),
        "bigram_repeat": bigram_repeat(text),
    }
    if format_ok(text) and len(split_lines(text)[0]) in (5, 7):
        report["rhyme"] = asdict(prosody.quatrain_rhyme(text))
        report["tones"] = asdict(prosody.tone_report(text, lenient=True))
        report["tones_strict"] = asdict(prosody.tone_report(text))
        report["nian_dui"] = [asdict(link) for link in prosody.nian_dui(text)]
    return report


def loss_curves(source=None) -> dict:
    """训练日志里的损失曲线（第 19 课的图、课程网站的图都用它）。

    Args:
        source: 存档路径（``./poet train`` 写的 checkpoint.pt，或随课程发布的 data/model.pt——导出时日志
            一起存了下来），或 :func:`poetry_gpt.train.train` 返回的 ``Run.log`` 列表。None 表示随课程发布的模型。

    Returns:
        ``{"train": [[step, loss], …], "val": [[step, val], …], "lr": [[step, lr], …], "eval_poems": n}``，
        单位奈特/字，step 是做完第几步（从 1 数）。train 是每步那一批诗上的损失（随批抖动）；val 是每隔
        eval_every 步在 val 里均匀取的 eval_poems 首上的损失（从存档读时 eval_poems 取自它的训练设置，
        给列表时为 None）。只含列表、数与 None，可以直接写成 JSON。

    Raises:
        poetry_gpt.checkpoint.CheckpointError: 存档不能读（见 read_checkpoint）。
    """
    eval_poems = None
    if source is None or not isinstance(source, list):
        from .checkpoint import SHIPPED_MODEL, read_checkpoint  # 只在读存档时才需要

        state = read_checkpoint(SHIPPED_MODEL if source is None else source)
        log, eval_poems = state["log"], state["train_config"].get("eval_poems")
    else:
        log = source
    return {
        "train": [[e["step"], e["loss"]] for e in log],
        "val": [[e["step"], e["val"]] for e in log if "val" in e],
        "lr": [[e["step"], e["lr"]] for e in log],
        "eval_poems": eval_poems,
    }
