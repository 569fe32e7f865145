"""写诗（第 20–23 课）：逐字采样、KV 缓存、温度与 top-k / top-p 截断、守住格式的受约束解码。

一首诗的生成顺序与训练样本的排布相同::

    <bos> <5或7> 关键词… <sep> 正文第 1 句，第 2 句。第 3 句，第 4 句。<eos>

受约束解码（默认开启）在每一步只允许合乎格式的字：句中只能是汉字（没有特殊标记、没有 <unk>），
句尾只能是标点，写满四句就只能是 <eos>——长度是定死的，所以一定会停。给定的字如果快没位置了，
就强制写进剩下的格子；藏头诗每句第一个字是指定的；一句写到最后一个字时，不许与前面某句完全相同。

在此之上，诗律解码（poetry_gpt.verse，第 24 课，默认开启）让第二、四句押韵、平仄合近体格式、
用过的字少用；条件区只放模型训练时见过的 1–3 个字。``rules=PLAIN`` 时只守格式。
"""
from __future__ import annotations

import math
import os
import time
from typing import Iterator
from dataclasses import asdict, dataclass, field

import torch

from .data import BOS, EOS, SEP, Tokenizer, form_of, is_hanzi, to_simplified
from .model import KVCache, PoetryGPT
from .sampling import MAX_SEED, MIN_TEMPERATURE, SAMPLING, TOO_COLD, negative_temperature
from .verse import Verse, condition
from .verse_rules import PLAIN, VERSE, Rules

MAX_KEYWORDS = 4
KEYWORD_BONUS = 2.0
"""受约束解码时给还没写出的关键词的 logits 加上的数（奈特）：概率约放大 e² ≈ 7.4 倍。"""
FORM_SHARE = {5: 15137 / 89485, 7: 74348 / 89485}
"""不指定体裁时五言、七言各抽中的概率：train 里两种体裁的首数之比（七言约 83%）。
<bos> 之后那一格（体裁）从不计入损失，模型在那里的 logits 没训练过，不能拿来抽。"""
LINE_END_CHOICES = ("，？！", "。？！")
"""第 0、2 句与第 1、3 句（从 0 数，即第一、三句与第二、四句）句尾允许的标点。清洗语料认 ，。？！ 四种（data.LINE_ENDS），可语料里没有一首诗
用 ！，汉字表里就没有它：:class:`Constraint` 只用表里有的，所以今天实际是 ，？ 与 。？（第 22 课）。"""


class GenerationError(ValueError):
    """输入不能用来写诗（含表外字、拉丁字母、表情、空输入、藏头字数不对）；消息是中文并点出是哪个字。"""


@dataclass
class Poem:
    """一首生成的诗。text 带标点；form 是每句字数 5 或 7；seconds 是生成用时（秒）。"""

    text: str
    form: int
    keywords: list = field(default_factory=list)
    acrostic: str = ""
    seed: int = 0
    constrained: bool = True
    seconds: float = 0.0
    condition: str = ""
    """条件区里放的字（<sep> 之前）：多于 3 个字时只放其中 3 个，见 verse.condition。"""

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
            raise GenerationError(f"{what}不是合法的 UTF-8 文字：第 {i + 1} 个位置是字节 0x{ord(ch) - 0xdc00:02x}，"
                                  f"请检查终端的编码设置")
    simplified = to_simplified(text)
    for original, ch in zip(text, simplified):
        shown = f"“{original}”" + (f"（简体“{ch}”）" if ch != original else "")
        if not is_hanzi(ch):
            kind = "是拉丁字母、数字或符号" if ch.isascii() else "不是汉字"
            raise GenerationError(f"{what}里的{shown}{kind}；模型只认识汉字，请只给汉字")
        if ch not in tokenizer:
            raise GenerationError(f"{what}里的{shown}不在汉字表里（训练诗里几乎没出现过），模型写不了它；请换一个字")
    return simplified


def filter_logits(logits: torch.Tensor, top_k: int | None = None, top_p: float | None = None) -> torch.Tensor:
    """top-k 与 top-p（nucleus）截断（第 21 课）：不在候选里的 logits 设为 -inf。

    Args:
        logits: [V] 或 [B, V]。
        top_k: 只留分数最高的 k 个（None 或 0 表示不截）；与第 k 大的分数相等的并列字都留下，
            所以留下的可能多于 k 个。
        top_p: 在 top-k 剩下的字里，按分数从高到低（分数相等时编号小的在前）排好，排在一个字前面的
            概率之和已经 ≥ p 时丢掉它（None 或 ≥1 表示不截）；0 < p 时第一个总会留下。
            参见 Holtzman et al., "The Curious Case of Neural Text Degeneration", 2020。

    Returns:
        与 logits 同形状的新张量。
    """
    logits = logits.clone()
    if top_k:
        k = min(top_k, logits.shape[-1])
        kth = torch.topk(logits, k, dim=-1).values[..., -1:]
        logits[logits < kth] = float("-inf")
    if top_p is not None and top_p < 1.0:
        # stable：分数相等的字按编号从小到大排，并列字跨过 p 的边界时留下哪个是确定的
        sorted_logits, order = torch.sort(logits, dim=-1, descending=True, stable=True)
        probs = torch.softmax(sorted_logits, dim=-1)
        before = torch.cumsum(probs, dim=-1) - probs  # 排在它前面的概率之和
        drop = before >= top_p
        logits.scatter_(-1, order, sorted_logits.masked_fill(drop, float("-inf")))
    return logits


def sample_next(logits: torch.Tensor, temperature: float, top_k: int | None, top_p: float | None,
                generator: torch.Generator) -> int:
    """从一行 logits [V] 里抽一个编号；temperature 为 0 时取分数最高的（贪心）。"""
    if temperature <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(filter_logits(logits / temperature, top_k, top_p), dim=-1)
    return int(torch.multinomial(probs, 1, generator=generator))


class Constraint:
    """受约束解码的状态：第几句、句中第几格、还差哪些必须出现的字（第 22、23 课）。

    ``allowed()`` 返回这一格允许的编号 [V] bool；``apply(logits)`` 据此改写 logits；
    ``advance(token)`` 记下写出的字。rules 不是 PLAIN 时，汉字格子再经 :class:`poetry_gpt.verse.Verse`
    收紧（押韵、平仄、重复）与调低（用过的字），第 24 课。
    """

    def __init__(self, tokenizer: Tokenizer, form: int, required: str = "", acrostic: str = "",
                 rules: Rules = VERSE):
        self.tokenizer = tokenizer
        self.rules = rules
        self.form = form
        self.acrostic = [tokenizer.stoi[c] for c in acrostic]
        # 藏头字一定会写出，不必再算进“还差的字”
        self.missing = [tokenizer.stoi[c] for c in dict.fromkeys(required) if c not in acrostic]
        self.verse = None if rules == PLAIN else Verse(tokenizer, form, rules, self.acrostic, list(self.missing))
        self.hanzi = hanzi_mask(tokenizer)
        self.ends = [torch.tensor([tokenizer.stoi[c] for c in ends if c in tokenizer]) for ends in LINE_END_CHOICES]
        self.lines: list[list[int]] = [[]]
        self.done = False

    def _free_slots_left(self) -> int:
        """包括这一格在内，还剩几个能自由选字的格子（藏头字的格子不算）。"""
        line, pos = len(self.lines) - 1, len(self.lines[-1])
        left = (4 - line) * self.form - pos
        if self.acrostic:
            left -= 4 - line - (1 if pos > 0 else 0)
        if self.rules.rhyme and (line, pos) != (3, self.form - 1):
            left -= 1  # 第四句的最后一格留给韵脚：还差的字要在它之前写进去
        return left

    def allowed(self) -> torch.Tensor:
        V = len(self.tokenizer)
        mask = torch.zeros(V, dtype=torch.bool)
        line, pos = len(self.lines) - 1, len(self.lines[-1])
        if self.done:
            mask[EOS] = True
        elif pos == self.form:
            mask[self.ends[line % 2]] = True
        elif self.acrostic and pos == 0:
            mask[self.acrostic[line]] = True
        else:
            if self.missing and self._free_slots_left() <= len(self.missing):
                mask[self.missing] = True  # 没有余地了：这一格必须写还差的字
            else:
                mask |= self.hanzi
            if self.verse is not None:
                mask = self.verse.narrow(mask, line, pos)
            if pos == self.form - 1:  # 一句的最后一个字：不许与前面某句一字不差
                unrepeated = mask.clone()
                for earlier in self.lines[:-1]:
                    if earlier[: self.form - 1] == self.lines[-1]:
                        unrepeated[earlier[self.form - 1]] = False
                if unrepeated.any():  # 只有强制要写的字恰好造成重句时才会全被排除：那时宁可重句
                    mask = unrepeated
        return mask

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        """logits [V] → 不允许的编号设为 -inf；还差的字加 KEYWORD_BONUS，让它们在自然的位置早点出现，
        而不是等到最后一格被硬塞进去；有诗律解码时，用过的字先减去重复惩罚（verse.REPEAT_PENALTY）。"""
        if self.verse is not None:
            logits = self.verse.adjust(logits)
        logits = logits.masked_fill(~self.allowed(), float("-inf"))
        if self.missing:
            logits[self.missing] += KEYWORD_BONUS
        return logits

    def advance(self, token: int) -> None:
        line = self.lines[-1]
        if len(line) == self.form:  # 刚写完句尾标点
            line.append(token)
            if len(self.lines) == 4:
                self.done = True
            else:
                self.lines.append([])
            return
        if self.verse is not None:
            self.verse.advance(token, len(self.lines) - 1, len(line))
        line.append(token)
        if token in self.missing:
            self.missing.remove(token)


_HANZI_MASKS: dict[str, torch.Tensor] = {}


def hanzi_mask(tokenizer: Tokenizer) -> torch.Tensor:
    """[V] bool：哪些编号是汉字（句中允许的字）。特殊标记、<unk>、标点都不是。"""
    key = tokenizer.vocab_hash
    if key not in _HANZI_MASKS:
        _HANZI_MASKS[key] = torch.tensor([len(t) == 1 and is_hanzi(t) for t in tokenizer.tokens])
    return _HANZI_MASKS[key]


@torch.inference_mode()
def write_one(model: PoetryGPT, tokenizer: Tokenizer, keywords: str, *, form: int | None = None,
              acrostic: str = "", temperature: float = SAMPLING.temperature, top_k: int | None = SAMPLING.top_k,
              top_p: float | None = SAMPLING.top_p,
              seed: int = 0, constrained: bool = True, rules: Rules = VERSE) -> Poem:
    """写一首诗；keywords、acrostic 须已经过 :func:`check_characters`。

    用 KV 缓存：条件区算一次，之后每个新字只算它自己这一格（第 20 课），与每次重算整段的结果相同。
    form 为 None 时按 :data:`FORM_SHARE` 在 5、7 之间抽一个（受约束时只在前文长度放得下的体裁里抽）。
    rules：诗律解码的设置（poetry_gpt.verse）；rules.seen_condition 时条件区只放至多 3 个字。

    Raises:
        GenerationError: 受约束解码时，模型的前文长度 context_length 放不下这首诗（条件区加四句正文）。
    """
    started = time.perf_counter()
    prompt = condition(keywords, acrostic, tokenizer) if rules.seen_condition else keywords
    fits = forms_that_fit(model, len(prompt), form) if constrained else [form] if form else [5, 7]
    generator = torch.Generator().manual_seed(seed)
    device = next(model.parameters()).device
    cache = KVCache(model.config.n_layers)

    def step(ids: list[int]) -> torch.Tensor:
        logits, _ = model(torch.tensor([ids], device=device), kv_cache=cache)
        return logits[0, -1].float().cpu()

    if form is None:
        form = draw_form(fits, generator)
    logits = step([BOS, form_of(line_length=form).token] + tokenizer.encode(prompt) + [SEP])
    constraint = Constraint(tokenizer, form, keywords, acrostic, rules) if constrained else None
    body: list[int] = []
    limit = model.config.context_length - len(cache)
    for _ in range(limit):
        if constraint is not None:
            logits = constraint.apply(logits)
        token = sample_next(logits, temperature, top_k, top_p, generator)
        if token == EOS:
            break
        body.append(token)
        if constraint is not None:
            constraint.advance(token)
        if len(cache) + 1 == model.config.context_length:  # 前文加正文已满 context_length 个位置
            break
        logits = step([token])
    text = tokenizer.decode(body)
    return Poem(text=text, form=form, keywords=list(keywords), acrostic=acrostic, seed=seed,
                constrained=constrained, seconds=time.perf_counter() - started, condition=prompt)


def draw_form(fits: list[int], generator: torch.Generator) -> int:
    """不指定体裁时抽一个：在放得下的体裁 fits（如 [5, 7]）里按 :data:`FORM_SHARE` 的比例抽。
    write_one 用它做种子的第一次抽取，所以同一个种子总是同一种体裁。"""
    shares = torch.tensor([FORM_SHARE[f] for f in fits])
    return fits[int(torch.multinomial(shares, 1, generator=generator))]


def positions_needed(n_condition: int, form: int) -> int:
    """一首诗要占的位置数：<bos> <5或7> 条件区 <sep>，再加四句正文（每句 form 个字和一个标点）。
    最后一个标点之后的 <eos> 由这些位置预测出来，不占位置。"""
    return 3 + n_condition + 4 * (form + 1)


def forms_that_fit(model: PoetryGPT, n_condition: int, form: int | None) -> list[int]:
    """前文长度放得下的体裁：form 给定时是 [form]，None 时是 5、7 里放得下的。放不下的诗不写，不截断。

    Raises:
        GenerationError: 一种也放不下（消息里说要几个位置）。
    """
    fits = [f for f in ([form] if form else [5, 7]) if positions_needed(n_condition, f) <= model.config.context_length]
    if not fits:
        f = form or 5
        raise GenerationError(f"这个模型的前文长度 context_length 只有 {model.config.context_length} 个位置，"
                              f"放不下一首{'五' if f == 5 else '七'}言绝句（条件区加正文要 "
                              f"{positions_needed(n_condition, f)} 个）；请换一个存档或体裁")
    return fits


def write_poems(model: PoetryGPT, tokenizer: Tokenizer, keywords: str = "", *, n: int = 1,
                form: int | None = None, acrostic: str = "", temperature: float = SAMPLING.temperature,
                top_k: int | None = SAMPLING.top_k, top_p: float | None = SAMPLING.top_p, seed: int | None = None,
                constrained: bool = True, rules: Rules = VERSE) -> list[Poem]:
    """检查输入，然后写 n 首互不相同的诗（同一个 seed 每次得到同样的诗）。参数与错误同 :func:`iter_poems`。"""
    return list(iter_poems(model, tokenizer, keywords, n=n, form=form, acrostic=acrostic,
                           temperature=temperature, top_k=top_k, top_p=top_p, seed=seed, constrained=constrained,
                           rules=rules))


def iter_poems(model: PoetryGPT, tokenizer: Tokenizer, keywords: str = "", *, n: int = 1,
               form: int | None = None, acrostic: str = "", temperature: float = SAMPLING.temperature,
               top_k: int | None = SAMPLING.top_k, top_p: float | None = SAMPLING.top_p, seed: int | None = None,
               constrained: bool = True, rules: Rules = VERSE) -> Iterator[Poem]:
    """立即检查输入，然后返回一个逐首写诗的迭代器：每写好一首就交出一首，``./poet write -n`` 可以边写边印。

    Args:
        keywords: 要写进诗里的字（1–4 个，可以是繁体）；为空时用藏头字作条件。
        form: 5、7 或 None（按 train 里两种体裁的比例抽，见 :data:`FORM_SHARE`）。acrostic: 藏头字，必须正好 4 个（每句一个）。
        rules: 诗律解码的设置（poetry_gpt.verse.Rules；默认 VERSE，PLAIN 只守格式）。

    Raises:
        GenerationError: 输入不合要求（见 :func:`check_characters`），参数超出范围
            （temperature、top_p 不是有限数，种子不在 0 ≤ seed < 2**63 内等），或模型的前文长度
            放不下这种体裁的诗。
    """
    if form not in (None, 5, 7):
        raise GenerationError(f"体裁只能是 5（五言）或 7（七言），收到 {form}")
    if n < 1:
        raise GenerationError("-n 至少为 1")
    if temperature < 0 and math.isfinite(temperature):  # 负数另说：“几乎没有分别”的解释只对 0 到 0.01 之间成立
        raise GenerationError(negative_temperature(temperature))
    if not math.isfinite(temperature) or not (temperature == 0 or temperature >= MIN_TEMPERATURE):
        raise GenerationError(f"温度 temperature 要是有限数：要么是 0（每步取最可能的字），要么不小于 {MIN_TEMPERATURE}，"
                              f"收到 {temperature}（{TOO_COLD}）")
    if top_p is not None and not 0 < top_p <= 1:  # nan 与 inf 也在这里被拒
        raise GenerationError("top-p 要在 0 与 1 之间（可以等于 1）")
    if top_k is not None and top_k < 0:
        raise GenerationError("top-k 不能是负数")
    if n > 1 and (temperature == 0 or top_k == 1):
        raise GenerationError("温度为 0 或 top-k 为 1 时每步都取最可能的字，每次写出的是同一首诗，-n 只能是 1")
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
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    if not 0 <= seed < MAX_SEED:
        raise GenerationError(f"随机种子要在 0 与 {MAX_SEED - 1} 之间，收到 {seed}")
    if constrained:  # 受约束解码保证写完四句；不受约束时（第 20 课）写满前文长度就停
        forms_that_fit(model, len(condition(keywords, acrostic, tokenizer) if rules.seen_condition else keywords), form)

    def poems() -> Iterator[Poem]:
        seen: set[str] = set()
        attempt = 0
        while len(seen) < n and attempt < 20 * n:  # 偶尔两次抽到同一首：换个种子再写；采样太确定时就此作罢
            poem = write_one(model, tokenizer, keywords, form=form, acrostic=acrostic, temperature=temperature,
                             top_k=top_k, top_p=top_p, seed=(seed + attempt) % MAX_SEED, constrained=constrained,
                             rules=rules)
            attempt += 1
            if poem.text not in seen:
                seen.add(poem.text)
                yield poem

    return poems()
