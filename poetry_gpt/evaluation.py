"""``./poet eval`` 的全部数字（第 25 课）：验证交叉熵与二元基线，按固定提示写诗，再用
:mod:`poetry_gpt.metrics` 的指标给模型的诗与人写的诗打分。
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from itertools import count

import torch

from .common import COURSE_SEED
from .data import Tokenizer, load_poems
from .metrics import (
    copy_rate,
    distinct_n,
    drawn_keyword,
    eval_prompts,
    format_ok,
    human_poems,
    keyword_hit,
    keyword_twice,
    reader_report,
    special_prompts,
)
from .settings import DRAFTS, EVAL_PROMPTS, SCORE, VERSE

Progress = Callable[[str, int, int], None]
"""进度的回调 progress(阶段, 做完几份, 一共几份)：阶段是 CROSS_ENTROPY（按批算交叉熵）或 POEMS（按首写诗）。
./poet eval 用它画进度条；模型库不管怎么显示。"""
CROSS_ENTROPY = "交叉熵"
POEMS = "写诗"
CE_BATCH = 128
"""算交叉熵时一批几首（mean_cross_entropy 的 batch_size）。"""


def evaluate_model(
    model,
    tokenizer: Tokenizer,
    n_prompts: int = EVAL_PROMPTS,
    seed: int = COURSE_SEED,
    val_poems: int | None = None,
    rules=None,
    n_special: int = 40,
    drafts: int = DRAFTS,
    score: str = SCORE,
    progress: Progress | None = None,
) -> dict:
    """``./poet eval`` 的全部数字。

    Args:
        n_prompts: :func:`poetry_gpt.metrics.eval_prompts` 的个数；n_special: 藏头、四个关键词两组提示各几个
            （:func:`poetry_gpt.metrics.special_prompts`；不多于 n_prompts）。
        rules: 诗律解码的设置（poetry_gpt.verse.Rules）；None 为默认的 VERSE，PLAIN 是第 22、23 课只守格式的解码。
        drafts、score：受约束的诗每首写几份草稿、按哪种分数留下一份（generate.write_drafts、poetry_gpt.rerank，
            与 ./poet write 相同）；不受约束的两组（format_rate_free 等）总是只写一份：它们量的是模型自己。
        progress: 给了就在每算完一批交叉熵、每写完一首诗时调用（见 :data:`Progress`）。

    Returns:
        dict：val_cross_entropy（条件区是诗自己的关键词，data.keywords_for）与 bigram_cross_entropy
        （奈特/字，正文与 <eos>）、二者之比，val_cross_entropy_no_keywords（条件区空着），
        val_cross_entropy_drawn_keyword（条件区是像 regulated 预设训练时那样按 IDF 从诗里抽的一个字，
        第 i 首用种子 seed + i，metrics.drawn_keyword），
        受约束与不受约束时的 format_rate、keyword_hit_rate，copy_rate（受约束的诗）、distinct_2、
        seconds_per_poem（受约束时每首的平均秒数，连同它的几份草稿，一个线程，与 ./poet write 相同），prompts、val_poems 两个计数；
        drafts、score；log_prob（留下的诗的每字平均对数概率，奈特/字，受约束的 prompts 首）、log_prob_single
        与 distinct_2_single（同样的提示只写一份、即每首的第一份草稿时的这两个数：挑草稿前后并排）；
        reader：{"五言": …, "七言": …, "藏头": …, "四个关键词": …}，每组是 :func:`poetry_gpt.metrics.reader_report`，
        另有 format_rate（四个关键词组还有 format_rate_free：--free 时）；human：{"五言": …, "七言": …}，
        val 里同样首数的人写的诗的 :func:`poetry_gpt.metrics.reader_report`。
        两个交叉熵都在同一批 val 诗上算（val_poems 给了时是等距取的那么多首，见 data.load_poems）。
    """
    rules = VERSE if rules is None else rules
    report = progress or (lambda stage, done, total: None)
    val = load_poems("val", val_poems)
    ce_batches = 3 * math.ceil(len(val) / CE_BATCH) + 1  # 三种条件区各算一遍，最后一份是二元基线
    report(CROSS_ENTROPY, 0, ce_batches)
    batches_done = count(1)
    val_ce, val_ce_bare, val_ce_drawn, bigram = _cross_entropies(
        model, tokenizer, val, seed, lambda: report(CROSS_ENTROPY, next(batches_done), ce_batches)
    )
    report(CROSS_ENTROPY, ce_batches, ce_batches)
    prompts = eval_prompts(n_prompts)
    special = special_prompts(min(n_special, n_prompts), seed)
    poems = _write_eval_poems(model, tokenizer, prompts, special, seed, rules, drafts, score, report)
    fixed, free = poems["fixed"], poems["free"]
    first = [p.drafts[0] if p.drafts else {"text": p.text, "log_prob": p.log_prob} for p in fixed]
    reader = _reader_groups(poems)
    return {
        "val_poems": len(val),
        "prompts": len(prompts),
        "rules": {
            "rhyme": rules.rhyme,
            "tones": rules.tones,
            "repetition": rules.repetition,
            "seen_condition": rules.seen_condition,
        },
        "val_cross_entropy": val_ce,
        "bigram_cross_entropy": bigram,
        "ratio_to_bigram": val_ce / bigram,
        "val_cross_entropy_no_keywords": val_ce_bare,
        "val_cross_entropy_drawn_keyword": val_ce_drawn,
        "format_rate": _rate(format_ok(p.text, p.form) for p in fixed),
        "format_rate_free": _rate(format_ok(p.text, p.form) for p in free),
        "keyword_hit_rate": _rate(keyword_hit(p.text, p.keywords) for p in fixed),
        "keyword_hit_rate_free": _rate(keyword_hit(p.text, p.keywords) for p in free),
        "copy_rate": copy_rate([p.text for p in fixed]),
        "distinct_2": distinct_n([p.text for p in fixed]),
        "seconds_per_poem": sum(p.seconds for p in fixed) / max(len(fixed), 1),
        "drafts": drafts,
        "score": score,
        "log_prob": sum(p.log_prob for p in fixed) / max(len(fixed), 1),
        "log_prob_single": sum(d["log_prob"] for d in first) / max(len(first), 1),
        "distinct_2_single": distinct_n([d["text"] for d in first]),
        "reader": reader,
        "human": _human_groups(reader, seed),
        "examples": [p.text for p in fixed[:3]],
    }


def _rate(flags) -> float:
    flags = list(flags)
    return sum(flags) / max(len(flags), 1)


def _cross_entropies(
    model, tokenizer: Tokenizer, val: list[dict], seed: int, on_batch: Callable[[], None]
) -> tuple[float, float, float, float]:
    """val 诗上的交叉熵（奈特/字）：模型的条件区是诗自己的关键词（keywords_for）、空着、按 IDF 抽的一个字
    （第 i 首种子 seed + i），以及二元基线。都在同一批诗上算，模型与基线之比才有意义。每算完一批调用 on_batch。"""
    from . import loss
    from .bigram import BigramModel
    from .data import encode_sample

    # 下面照旧调用 mean_cross_entropy，只是每算完一批还报一次进度
    mean_cross_entropy = partial(loss.mean_cross_entropy, batch_size=CE_BATCH, on_batch=on_batch)
    device = next(model.parameters()).device
    val_ce = mean_cross_entropy(model, [encode_sample(p, tokenizer) for p in val], device)
    val_ce_bare = mean_cross_entropy(model, [encode_sample(p, tokenizer, keywords=()) for p in val], device)
    drawn = [encode_sample(p, tokenizer, drawn_keyword(p["text"], seed + i, tokenizer)) for i, p in enumerate(val)]
    val_ce_drawn = mean_cross_entropy(model, drawn, device)
    bigram = BigramModel.fit(load_poems("train"), tokenizer).cross_entropy(val)
    return val_ce, val_ce_bare, val_ce_drawn, bigram


def _write_eval_poems(
    model,
    tokenizer: Tokenizer,
    prompts: list[tuple[str, int]],
    special: dict,
    seed: int,
    rules,
    drafts: int,
    score: str,
    report: Progress,
) -> dict[str, list]:
    """按各组提示写诗（第 i 首的种子是 seed + i）：fixed、free（同样的提示，受约束与不受约束）、
    heads（藏头）、fours、fours_free（四个关键词，受约束与不受约束）。受约束的每首写 drafts 份草稿、留下 score
    最高的一份（第一份草稿就是只写一份时的那首）；不受约束的只写一份。与 ./poet write 一样用一个线程，
    每首用时才是学习者看到的；写完恢复原来的线程数。每写完一首调用 report(POEMS, 写完几首, 一共几首)。"""
    from .generate import keep_best, write_drafts

    total = 2 * len(prompts) + len(special["acrostic"]) + 2 * len(special["four_keywords"])
    written = count(1)
    report(POEMS, 0, total)

    def write(items, constrained=True, acrostic=False):
        poems = []
        for i, (kw, form) in enumerate(items):
            n = drafts if constrained else 1
            batch = write_drafts(
                model,
                tokenizer,
                kw,
                drafts=n,
                form=form,
                acrostic=kw if acrostic else "",
                seed=seed + i,
                constrained=constrained,
                rules=rules,
            )
            poems.append(batch[0] if n == 1 else keep_best(model, tokenizer, batch, set(), score))
            report(POEMS, next(written), total)
        return poems

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return {
            "fixed": write(prompts),
            "free": write(prompts, constrained=False),
            "heads": write(special["acrostic"], acrostic=True),
            "fours": write(special["four_keywords"]),
            "fours_free": write(special["four_keywords"], constrained=False),
        }
    finally:
        torch.set_num_threads(threads)


def _reader_groups(poems: dict[str, list]) -> dict[str, dict]:
    """模型的诗按组的 :func:`poetry_gpt.metrics.reader_report`，各加上 format_rate（四个关键词组还有 --free 时的 format_rate_free）。"""

    def group(items) -> dict:
        report = reader_report([p.text for p in items], [p.keywords for p in items])
        report["format_rate"] = _rate(format_ok(p.text, p.form) for p in items)
        return report

    reader = {name: group([p for p in poems["fixed"] if p.form == form]) for name, form in (("五言", 5), ("七言", 7))}
    reader["藏头"] = group(poems["heads"])
    reader["四个关键词"] = group(poems["fours"])
    reader["四个关键词"]["format_rate_free"] = _rate(format_ok(p.text, p.form) for p in poems["fours_free"])
    return reader


def _human_groups(reader: dict[str, dict], seed: int) -> dict[str, dict]:
    """val 里与模型的五言、七言组同样首数的人写的诗的 :func:`poetry_gpt.metrics.reader_report`。"""
    human = {}
    for name, form in (("五言", 5), ("七言", 7)):
        texts = human_poems(form, reader[name]["poems"], seed)
        human[name] = reader_report(texts)
        # 人写的诗没有“给定的字”：在每首里像训练时那样按 IDF 抽一个实字，看它出现两次以上的比例
        human[name]["keyword_twice"] = keyword_twice(texts, [drawn_keyword(t, seed + i) for i, t in enumerate(texts)])
    return human


GENERAL_VAL = 512
"""微调前后比较时，val 全部绝句里等距取多少首（与训练时的验证同一个子集）。"""


def finetune_report(before, after, author: str, tokenizer: Tokenizer) -> dict[str, tuple[float, float]]:
    """微调前后的验证交叉熵（奈特/字，诗自己的关键词，第 26 课）：这位诗人留在 val 里的诗学到了多少，
    val 里别人的诗（等距取 :data:`GENERAL_VAL` 首全部绝句）忘了多少。

    Returns:
        ``{"author": (前, 后), "general": (前, 后)}``。
    """
    from .batches import encode_split
    from .loss import mean_cross_entropy

    sets = {
        "author": encode_split("val", tokenizer, author=author),
        "general": encode_split("val", tokenizer, GENERAL_VAL),
    }
    device = next(after.parameters()).device
    return {
        name: (round(mean_cross_entropy(before, s, device), 4), round(mean_cross_entropy(after, s, device), 4))
        for name, s in sets.items()
    }
