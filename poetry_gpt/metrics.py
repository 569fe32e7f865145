"""怎样评价一首诗、一个模型（第 25 课）：格式、关键词、抄袭率、distinct-2、验证交叉熵与二元基线。

``./poet eval`` 用的就是这里的 :func:`evaluate_model`。
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Sequence

import torch

from .common import COURSE_SEED
from .data import FORMS, BadRecord, Tokenizer, clean_record, keywords_for, load_poems, split_lines

def format_ok(text: str, form: int | None = None) -> bool:
    """text 是否是一首合格的绝句：用建语料时同一套规则（data.clean_record）检查——正好四句、
    每句 form（5 或 7；None 表示两者皆可）个汉字、每句以 ，。？！ 之一结尾，此外没有别的符号。"""
    try:
        record = clean_record({"text": text}, convert=str)
    except BadRecord:
        return False
    return record["text"] == text and (form is None or FORMS[record["form"]] == form)


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


DISTINCT_POEMS = 40
"""算 distinct-2 时每组取的首数：distinct-2 随首数增多而下降，只有首数相同的组才能相比。"""


def human_poems(form: int, n: int, seed: int = COURSE_SEED) -> list[str]:
    """val 里按 seed 随机取的 n 首 form 言绝句（不够 n 首时全取）：与模型的诗并排比较的人写的诗。"""
    poems = [p["text"] for p in load_poems("val") if FORMS[p["form"]] == form]
    order = torch.randperm(len(poems), generator=torch.Generator().manual_seed(seed))[:n]
    return [poems[i] for i in order.tolist()]


def reader_report(texts: Sequence[str], keywords: Sequence[Sequence[str]] | None = None,
                  distinct_poems: int = DISTINCT_POEMS) -> dict:
    """读者会注意到的数字（第 24、25 课），一组诗（同一体裁）一份。

    Args:
        texts: 带标点的诗；不合格式的诗不计押韵、平仄、粘对（那几项的分母只算合格的诗）。
        keywords: 与 texts 对应的关键词；None 时不报关键词几项（人写的诗）。
        distinct_poems: distinct-2 只用前这么多首（不够时为 None）。

    Returns:
        dict（比例都是 0–1）：poems；rhyme（二、四句押韵且句尾是两个不同的字）；same_character_rhyme
        （二、四句用同一个字收尾）；tone_score（宽式平仄得分的平均，一三五不论）；tone_score_strict；
        nian_dui（粘对三处全合的诗的比例）；char_3（有字用了 3 次以上的诗）；bigram_repeat（有两字组合
        出现两次以上的诗，见 :func:`bigram_repeat`）；reused_lines（见 :func:`reused_lines`）；distinct_2；
        给了 keywords 时还有 keyword_hit（给定的字都出现）与 keyword_counts（每个给定的字出现 0、1、2、3 次
        以上各占的比例）、keyword_3（有给定的字出现 3 次以上的诗）。
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
        "distinct_2": distinct_n(texts[:distinct_poems]) if len(texts) >= distinct_poems else None,
    }
    if keywords is not None:
        counts = [c for t, kw in zip(texts, keywords) for c in keyword_counts(t, kw)]
        report["keyword_hit"] = sum(keyword_hit(t, kw) for t, kw in zip(texts, keywords)) / n
        report["keyword_counts"] = [sum(min(c, 3) == k for c in counts) / max(len(counts), 1) for k in range(4)]
        report["keyword_3"] = sum(max(keyword_counts(t, kw), default=0) >= 3 for t, kw in zip(texts, keywords)) / n
    return report


def eval_prompts(n: int = 200, seed: int = COURSE_SEED) -> list[str]:
    """n 个固定的提示：按 seed 从 val 里抽 n 首诗，各取它们的关键词（data.keywords_for）。"""
    poems = load_poems("val")
    order = torch.randperm(len(poems), generator=torch.Generator().manual_seed(seed))[:n]
    return ["".join(keywords_for(poems[i])) for i in order.tolist()]


def evaluate_model(model, tokenizer: Tokenizer, n_prompts: int = 200, seed: int = COURSE_SEED,
                   val_poems: int | None = None) -> dict:
    """``./poet eval`` 的全部数字。

    Returns:
        dict：val_cross_entropy 与 bigram_cross_entropy（奈特/字，正文与 <eos>）、二者之比，
        受约束与不受约束时的 format_rate、keyword_hit_rate，copy_rate（受约束的诗）、distinct_2、
        seconds_per_poem（受约束时每首的平均秒数），以及 prompts、val_poems 两个计数。
        两个交叉熵都在同一批 val 诗上算（val_poems 给了时是等距取的那么多首，见 data.load_poems）。
    """
    from .bigram import BigramModel
    from .data import encode_sample
    from .generate import write_one
    from .loss import evaluate

    # 模型与二元基线在同一批 val 诗上算交叉熵，二者之比才有意义
    val = load_poems("val", val_poems)
    val_ce = evaluate(model, [encode_sample(p, tokenizer) for p in val], next(model.parameters()).device)
    bigram = BigramModel.fit(load_poems("train"), tokenizer).cross_entropy(val)
    prompts = eval_prompts(n_prompts, seed)
    fixed, free = ([write_one(model, tokenizer, kw, seed=seed + i, constrained=constrained)
                    for i, kw in enumerate(prompts)] for constrained in (True, False))

    def rate(flags) -> float:
        flags = list(flags)
        return sum(flags) / max(len(flags), 1)

    return {
        "val_poems": len(val),
        "prompts": len(prompts),
        "val_cross_entropy": val_ce,
        "bigram_cross_entropy": bigram,
        "ratio_to_bigram": val_ce / bigram,
        "format_rate": rate(format_ok(p.text, p.form) for p in fixed),
        "format_rate_free": rate(format_ok(p.text) for p in free),
        "keyword_hit_rate": rate(keyword_hit(p.text, p.keywords) for p in fixed),
        "keyword_hit_rate_free": rate(keyword_hit(p.text, p.keywords) for p in free),
        "copy_rate": copy_rate([p.text for p in fixed]),
        "distinct_2": distinct_n([p.text for p in fixed]),
        "seconds_per_poem": sum(p.seconds for p in fixed) / max(len(fixed), 1),
        "examples": [p.text for p in fixed[:3]],
    }



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
