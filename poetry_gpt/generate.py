"""写诗（第 20 课）：检查输入、选体裁，然后用 KV 缓存逐字解码。

一首诗的生成顺序与训练样本的排布相同::

    <bos> <5或7> 关键词… <sep> 正文第 1 句，第 2 句。第 3 句，第 4 句。<eos>

每一步先经受约束解码（poetry_gpt.constraints，第 22、23 课，默认开启）只留合乎格式的字，
再按采样设置（poetry_gpt.sampling，第 21 课）抽一个。诗律解码（poetry_gpt.verse，第 24 课，默认开启）
在格式之上让第二、四句押韵、平仄合近体格式、用过的字少用；条件区只放模型训练时见过的 1–3 个字。
``rules=PLAIN`` 时只守格式。

同一个提示可以一批写几份草稿（:func:`write_drafts`，第 25 课）：每步一次前向算全部几行，每行有自己的种子与约束状态；
:func:`iter_poems` 再按 poetry_gpt.rerank 的分数留下一份（``./poet write`` 默认 settings.DRAFTS 份）。
批大小不同时矩阵乘法走的算法不同（一行时是矩阵乘向量），logits 在第六七位有效数字上不同；抽样要落在两个字的
分界上、差这么一点才会抽成另一个字，机会极小：第 i 份草稿与用它的种子单独写的一字不差（tests/lib/test_generate.py
在七种写法上逐字检查，bench/drafts.py 在发布的模型上再核对一遍），只有平均对数概率差在最后几位。
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import torch

from .common import DEFAULT_DATA, DataFileError, read_json
from .constraints import Constraint
from .data import EOS, FORMS, Tokenizer, condition, condition_ids, form_of, is_hanzi, to_simplified
from .model import KVCache, PoetryGPT
from .rerank import best, score_drafts
from .sampling import SAMPLING, SamplingConfig, sample_next
from .settings import MAX_DRAFTS, MAX_SEED, SCORE, SCORES, VERSE, Rules

MAX_KEYWORDS = 4
"""关键词最多几个字。"""


@lru_cache(maxsize=1)
def form_shares(path: str | Path = DEFAULT_DATA / "stats.json") -> dict[int, float]:
    """不指定体裁时五言、七言各抽中的概率（句长 → 概率）：train 里两种体裁的首数之比（七言约 83%），
    首数是建语料时记在 data/stats.json 的 "train_forms"。
    <bos> 之后那一格（体裁）从不计入损失，模型在那里的 logits 没训练过，不能拿来抽。

    Raises:
        DataFileError: 文件缺失、不是 JSON，或没有两种体裁的首数。
    """
    counts = read_json(path).get("train_forms", {})
    if {f.name for f in FORMS} - counts.keys():
        raise DataFileError(f'{path} 里没有 train 各体裁的首数（"train_forms"）：请重建语料')
    total = sum(counts[f.name] for f in FORMS)
    return {f.line_length: counts[f.name] / total for f in FORMS}


DRAFT_SEED_STRIDE = 1_000_000
"""相邻两份草稿的种子之差（:func:`draft_seed`）：种子 26 的草稿用 26、1000026、2000026……
-n 的几首（连同写重了换的种子，至多 20 × 100 个）用 seed、seed + 1……，./poet eval 的 200 个提示用 26 + i：
隔开一百万，一首诗的草稿不会与另一首的第一份同种子。不能是 2**32 的倍数：torch 的 CPU 随机数发生器
（mt19937）只用种子的低 32 位，种子差 2**32 的两个发生器抽出的数一模一样。"""


class GenerationError(ValueError):
    """输入不能用来写诗（含表外字、拉丁字母、表情、空输入、藏头字数不对）；消息是中文并点出是哪个字。"""


@dataclass
class Poem:
    """一首生成的诗。text 带标点；form 是每句字数 5 或 7；seconds 是生成用时（秒，几份草稿一起写时是整批的）。"""

    text: str
    form: int
    keywords: list = field(default_factory=list)
    acrostic: str = ""
    seed: int = 0
    constrained: bool = True
    seconds: float = 0.0
    condition: str = ""
    """条件区里放的字（<sep> 之前）：多于 3 个字时只放其中 3 个，见 data.condition。"""
    log_prob: float = 0.0
    """模型自己（温度 1、不截断、没有约束）给正文与 <eos> 每个字的平均对数概率（奈特/字，≤ 0）：
    同一个条件区下，越接近 0，模型越觉得这首诗顺。"""
    score: float | None = None
    """挑草稿用的分数（poetry_gpt.rerank.score_drafts）；只写一份、没有挑时为 None。"""
    drafts: list = field(default_factory=list)
    """这首诗是从哪几份草稿里挑的：每份 {text, form, seed, log_prob, score, kept}；只写一份时为空。"""

    def to_dict(self) -> dict:
        return asdict(self)


def check_characters(text: str, tokenizer: Tokenizer, what: str = "输入") -> str:
    """把输入规整成汉字表里的简体字：去掉空白，繁体换成简体，逐字检查。

    Returns:
        简体字串。

    Raises:
        GenerationError: 输入为空，或某个字不是汉字、不在汉字表里（消息里点出这个字）。
    """
    text = "".join(text.split())
    if not text:
        raise GenerationError(f"{what}是空的：请给至少一个汉字，例如 ./poet write 月")
    for i, ch in enumerate(text):
        if "\udc80" <= ch <= "\udcff":  # 系统按 surrogateescape 把不合法的 UTF-8 字节留成了这种“字”
            raise GenerationError(
                f"{what}不是合法的 UTF-8 文字：第 {i + 1} 个位置是字节 0x{ord(ch) - 0xDC00:02x}，请检查终端的编码设置"
            )
    simplified = to_simplified(text)
    for original, ch in zip(text, simplified):
        shown = f"“{original}”" + (f"（简体“{ch}”）" if ch != original else "")
        if not is_hanzi(ch):
            kind = "是拉丁字母、数字或符号" if ch.isascii() else "不是汉字"
            raise GenerationError(f"{what}里的{shown}{kind}；模型只认识汉字，请只给汉字")
        if ch not in tokenizer:
            raise GenerationError(f"{what}里的{shown}不在汉字表里（训练诗里几乎没出现过），模型写不了它；请换一个字")
    return simplified


def write_one(
    model: PoetryGPT,
    tokenizer: Tokenizer,
    keywords: str,
    *,
    form: int | None = None,
    acrostic: str = "",
    sampling: SamplingConfig = SAMPLING,
    seed: int = 0,
    constrained: bool = True,
    rules: Rules = VERSE,
) -> Poem:
    """写一首诗；keywords、acrostic 须已经过 :func:`check_characters`。参数与错误同 :func:`write_drafts`：
    就是只写一份草稿（种子 seed）的 write_drafts。"""
    return write_drafts(
        model,
        tokenizer,
        keywords,
        drafts=1,
        form=form,
        acrostic=acrostic,
        sampling=sampling,
        seed=seed,
        constrained=constrained,
        rules=rules,
    )[0]


def draft_seed(seed: int, draft: int) -> int:
    """第 draft 份草稿（从 0 数）的种子：seed + draft × :data:`DRAFT_SEED_STRIDE`（超过上限从 0 接着数）。
    第 0 份就是 seed 本身，所以 ``--drafts 1`` 写的正是多份草稿里的第一份。"""
    return (seed + draft * DRAFT_SEED_STRIDE) % MAX_SEED


class Draft:
    """一份草稿写到哪儿：体裁、自己的随机数发生器与受约束解码的状态（格式、藏头、押韵、平仄、重复），已写的正文。

    几份草稿一起写时，每一份的状态都是自己的，互不影响：与单独写这一份时走的是同样的步骤。
    """

    def __init__(self, seed: int, fits: list[int], form: int | None, constraint_for):
        self.seed = seed
        self.generator = torch.Generator().manual_seed(seed)
        self.form = draw_form(fits, self.generator) if form is None else form  # 种子的第一次抽取
        self.constraint = constraint_for(self.form)
        self.body: list[int] = []
        self.log_prob = 0.0  # 模型自己给已写的字（连同 <eos>）的对数概率之和
        self.done = False

    def choose(self, logits: torch.Tensor, sampling: SamplingConfig) -> int:
        """logits [V] → 这一格写的字（受约束时先经 Constraint.apply）；抽到 <eos> 就写完了。"""
        raw = logits
        if self.constraint is not None:
            logits = self.constraint.apply(logits)
        token = sample_next(logits, sampling.temperature, sampling.top_k, sampling.top_p, self.generator)
        self.log_prob += torch.log_softmax(raw, -1)[token].item()
        if token == EOS:
            self.done = True
            return token
        self.body.append(token)
        if self.constraint is not None:
            self.constraint.advance(token)
        return token


@torch.inference_mode()
def greedy_cached(
    model: PoetryGPT, prompt: list[int], eos: int, context_length: int, record: list | None = None
) -> list[int]:
    """贪心解码加 KV 缓存（第 20 课）：前文只算一次，之后每一步只把新写的一个字送进模型，取分数最高的字。

    Args:
        prompt: 条件区的编号，如 ``[BOS, FIVE, 月, SEP]``。eos: 停下的编号。context_length: 最多写到这么多个位置。
        record: 给了就把每一步的 logits ``[V]`` 依次放进去（第 20 课拿它与整段重算逐步比较）。

    Returns:
        写出的编号，不含最后选出的 eos；写满 context_length 个位置时停下。
    """
    cache = KVCache(model.config.n_layers)
    with torch.no_grad():
        logits = model(torch.tensor([prompt]), kv_cache=cache)[0][0, -1]
        out = []
        while True:
            if record is not None:
                record.append(logits)
            token = int(torch.argmax(logits))
            if token == eos:
                break
            out.append(token)
            if len(prompt) + len(out) == context_length:
                break
            logits = model(torch.tensor([[token]]), kv_cache=cache)[0][0, -1]  # [1, 1]：只有新字
    return out


def write_drafts(
    model: PoetryGPT,
    tokenizer: Tokenizer,
    keywords: str,
    *,
    drafts: int = 1,
    form: int | None = None,
    acrostic: str = "",
    sampling: SamplingConfig = SAMPLING,
    seed: int = 0,
    constrained: bool = True,
    rules: Rules = VERSE,
) -> list[Poem]:
    """同一个提示一起写 drafts 份草稿（第 25 课）；keywords、acrostic 须已经过 :func:`check_characters`。

    用 KV 缓存：条件区算一次，之后每个新字只算它自己这一格（第 20 课），与每次重算整段的结果相同。
    drafts 份草稿是一批的 drafts 行：每一步只做一次前向（ids [drafts, 1]，缓存的批大小也是 drafts），
    每一行有自己的种子（:func:`draft_seed`）、随机数发生器与约束状态（:class:`Draft`），
    所以第 i 份与单独用它的种子写的那一首相同（tests/lib/test_generate.py 逐字检查）。
    先写完的行之后送 <eos> 占位，不计入它的诗。
    form 为 None 时每份草稿按 :func:`form_shares` 在 5、7 之间抽一个（受约束时只在前文长度放得下的体裁里抽）。
    sampling：温度、top-k、top-p（poetry_gpt.sampling）。
    rules：诗律解码的设置（poetry_gpt.verse）；rules.seen_condition 时条件区只放至多 3 个字。

    Returns:
        drafts 首诗，第 i 首的种子是 draft_seed(seed, i)；seconds 是整批的用时。

    Raises:
        GenerationError: 受约束解码时，模型的前文长度 context_length 放不下这首诗（条件区加四句正文）。
    """
    started = time.perf_counter()
    prompt = prompt_for(keywords, acrostic, rules, tokenizer)
    fits = forms_that_fit(model, len(prompt), form) if constrained else [form] if form else [5, 7]
    device = next(model.parameters()).device
    cache = KVCache(model.config.n_layers)

    def step(ids: list[list[int]]) -> torch.Tensor:
        logits, _ = model(torch.tensor(ids, device=device), kv_cache=cache)
        return logits[:, -1].float().cpu()  # [drafts, V]

    def constraint_for(f: int) -> Constraint | None:
        return Constraint(tokenizer, f, keywords, acrostic, rules) if constrained else None

    rows = [Draft(draft_seed(seed, i), fits, form, constraint_for) for i in range(drafts)]
    logits = step([condition_ids(form_of(line_length=d.form), prompt, tokenizer) for d in rows])
    limit = model.config.context_length - len(cache)
    for _ in range(limit):
        tokens = [EOS if d.done else d.choose(row, sampling) for d, row in zip(rows, logits)]
        if all(d.done for d in rows):
            break
        if len(cache) + 1 == model.config.context_length:  # 前文加正文已满 context_length 个位置
            break
        logits = step([[token] for token in tokens])
    seconds = time.perf_counter() - started
    return [
        Poem(
            text=tokenizer.decode(d.body),
            form=d.form,
            keywords=list(keywords),
            acrostic=acrostic,
            seed=d.seed,
            constrained=constrained,
            seconds=seconds,
            condition=prompt,
            log_prob=d.log_prob / max(len(d.body) + d.done, 1),
        )
        for d in rows
    ]


def draw_form(fits: list[int], generator: torch.Generator) -> int:
    """不指定体裁时抽一个：在放得下的体裁 fits（如 [5, 7]）里按 :func:`form_shares` 的比例抽。
    每份草稿（:class:`Draft`）用它做种子的第一次抽取，所以同一个种子总是同一种体裁。"""
    shares = torch.tensor([form_shares()[f] for f in fits])
    return fits[int(torch.multinomial(shares, 1, generator=generator))]


def positions_needed(n_condition: int, form: int) -> int:
    """一首诗要占的位置数：<bos> <5或7> 条件区 <sep>，再加四句正文（每句 form 个字和一个标点）。
    最后一个标点之后的 <eos> 由这些位置预测出来，不占位置。"""
    return 3 + n_condition + 4 * (form + 1)


def prompt_for(keywords: str, acrostic: str, rules: Rules, tokenizer: Tokenizer) -> str:
    """条件区（<sep> 之前）放的字：rules.seen_condition 时是 :func:`poetry_gpt.data.condition` 挑出的至多 3 个字
    （模型训练时见过的长度），否则关键词原样放（rules=PLAIN，第 23 课对照用）。"""
    return condition(keywords, acrostic, tokenizer) if rules.seen_condition else keywords


def forms_that_fit(model: PoetryGPT, n_condition: int, form: int | None) -> list[int]:
    """前文长度放得下的体裁：form 给定时是 [form]，None 时是 5、7 里放得下的。放不下的诗不写，不截断。

    Raises:
        GenerationError: 一种也放不下（消息里说要几个位置）。
    """
    fits = [f for f in ([form] if form else [5, 7]) if positions_needed(n_condition, f) <= model.config.context_length]
    if not fits:
        f = form or 5
        raise GenerationError(
            f"这个模型的前文长度 context_length 只有 {model.config.context_length} 个位置，"
            f"放不下一首{'五' if f == 5 else '七'}言绝句（条件区加正文要 "
            f"{positions_needed(n_condition, f)} 个）；请换一个存档或体裁"
        )
    return fits


def write_poems(
    model: PoetryGPT,
    tokenizer: Tokenizer,
    keywords: str = "",
    *,
    n: int = 1,
    form: int | None = None,
    acrostic: str = "",
    sampling: SamplingConfig = SAMPLING,
    seed: int | None = None,
    constrained: bool = True,
    rules: Rules = VERSE,
    drafts: int = 1,
    score: str = SCORE,
) -> list[Poem]:
    """检查输入，然后写 n 首互不相同的诗（同一个 seed 每次得到同样的诗）。参数与错误同 :func:`iter_poems`。"""
    return list(
        iter_poems(
            model,
            tokenizer,
            keywords,
            n=n,
            form=form,
            acrostic=acrostic,
            sampling=sampling,
            seed=seed,
            constrained=constrained,
            rules=rules,
            drafts=drafts,
            score=score,
        )
    )


def iter_poems(
    model: PoetryGPT,
    tokenizer: Tokenizer,
    keywords: str = "",
    *,
    n: int = 1,
    form: int | None = None,
    acrostic: str = "",
    sampling: SamplingConfig = SAMPLING,
    seed: int | None = None,
    constrained: bool = True,
    rules: Rules = VERSE,
    drafts: int = 1,
    score: str = SCORE,
) -> Iterator[Poem]:
    """立即检查输入，然后返回一个逐首写诗的迭代器：每写好一首就交出一首，``./poet write -n`` 可以边写边印。

    Args:
        keywords: 要写进诗里的字（1–4 个，可以是繁体）；为空时用藏头字作条件。
        form: 5、7 或 None（按 train 里两种体裁的比例抽，见 :func:`form_shares`）。acrostic: 藏头字，必须正好 4 个（每句一个）。
        sampling: 温度、top-k、top-p（poetry_gpt.sampling.SamplingConfig，建的时候已查过范围）。
        seed: 第一首的种子，0 ≤ seed < 2**63；None 时随机取一个。
        rules: 诗律解码的设置（poetry_gpt.settings.Rules；默认 VERSE，PLAIN 只守格式）。
        drafts: 每首诗写几份草稿（:func:`write_drafts`，一批一起写），留下 score 最高、与前面几首不同的一份
            （poetry_gpt.rerank）；1 时只写一份、不挑。第 k 首的草稿种子是 draft_seed(seed + k, i)，
            写重了再换下一个 seed + k。
        score: 挑草稿的分数，settings.SCORES 之一。

    Raises:
        GenerationError: 输入不合要求（见 :func:`check_characters`），参数超出范围（种子不在 0 ≤ seed < 2**63 内、
            采样太确定却要多首等；drafts 不在 1 与 settings.MAX_DRAFTS 之间），或模型的前文长度放不下这种体裁的诗。
    """
    if form not in (None, 5, 7):
        raise GenerationError(f"体裁只能是 5（五言）或 7（七言），收到 {form}")
    if n < 1:
        raise GenerationError("-n 至少为 1")
    if not 1 <= drafts <= MAX_DRAFTS:
        raise GenerationError(f"草稿份数要在 1 与 {MAX_DRAFTS} 之间，收到 {drafts}")
    if score not in SCORES:
        raise GenerationError(f"挑草稿的分数只能是 {'、'.join(SCORES)} 之一，收到 {score}")
    if n > 1 and sampling.greedy:
        raise GenerationError("温度为 0 或 top-k 为 1 时每步都取最可能的字，每次写出的是同一首诗，-n 只能是 1")
    keywords, acrostic = checked_prompt(tokenizer, keywords, acrostic, constrained)
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else seed
    if not 0 <= seed < MAX_SEED:
        raise GenerationError(f"随机种子要在 0 与 {MAX_SEED - 1} 之间，收到 {seed}")
    if constrained:  # 受约束解码保证写完四句；不受约束时（第 20 课）写满前文长度就停
        forms_that_fit(model, len(prompt_for(keywords, acrostic, rules, tokenizer)), form)

    def poems() -> Iterator[Poem]:
        seen: set[str] = set()
        attempt = 0
        while len(seen) < n and attempt < 20 * n:  # 偶尔两次抽到同一首：换个种子再写；采样太确定时就此作罢
            batch = write_drafts(
                model,
                tokenizer,
                keywords,
                drafts=drafts,
                form=form,
                acrostic=acrostic,
                sampling=sampling,
                seed=(seed + attempt) % MAX_SEED,
                constrained=constrained,
                rules=rules,
            )
            attempt += 1
            if all(p.text in seen for p in batch):
                continue
            poem = batch[0] if drafts == 1 else keep_best(model, tokenizer, batch, seen, score)
            seen.add(poem.text)
            yield poem

    return poems()


def keep_best(model: PoetryGPT, tokenizer: Tokenizer, batch: list[Poem], seen: set[str], score: str) -> Poem:
    """几份草稿里留下分数最高、又不在 seen 里（与已经交出的诗不同）的一份；并列时取前面的。

    留下的那首的 score 是它的分数，drafts 列出每一份的 text、form、seed、log_prob、score 与 kept（是不是它）。
    """
    scores = score_drafts(model, tokenizer, batch, score)
    chosen = best(scores, [i for i, p in enumerate(batch) if p.text not in seen])
    listed = [
        {"text": p.text, "form": p.form, "seed": p.seed, "log_prob": p.log_prob, "score": s, "kept": i == chosen}
        for i, (p, s) in enumerate(zip(batch, scores))
    ]
    return replace(batch[chosen], score=scores[chosen], drafts=listed)


def checked_prompt(tokenizer: Tokenizer, keywords: str, acrostic: str, constrained: bool) -> tuple[str, str]:
    """规整关键词与藏头字（第 23 课）：各经 :func:`check_characters`；没给关键词时，藏头字就当关键词。

    Returns:
        (keywords, acrostic)：简体字串。

    Raises:
        GenerationError: 字不合要求，藏头字不是正好 4 个，关键词多于 MAX_KEYWORDS 个，或关掉约束时要藏头。
    """
    if acrostic and not constrained:
        raise GenerationError("藏头要靠受约束解码才能保证；关掉约束（--free）时不能同时要藏头（--acrostic）")
    if acrostic:
        acrostic = check_characters(acrostic, tokenizer, "藏头字")
        if len(acrostic) != 4:
            raise GenerationError(f"藏头诗有四句，藏头字要正好 4 个，收到 {len(acrostic)} 个：“{acrostic}”")
    if keywords or not acrostic:
        keywords = check_characters(keywords, tokenizer, "关键词")
        if len(keywords) > MAX_KEYWORDS:
            raise GenerationError(f"关键词最多 {MAX_KEYWORDS} 个字，收到 {len(keywords)} 个：“{keywords}”")
    else:
        keywords = acrostic
    return keywords, acrostic
