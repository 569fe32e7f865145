"""数据：清洗一首诗、汉字表 Tokenizer、关键词、训练样本的排布与损失掩码、取批。

一条训练样本的排布（第 06 课）::

    <bos> <5> 月 霜 <sep> 床 前 明 月 光 ， … 。 <eos>
    |--- 条件区 ----|     |------ 正文 ------|

模型读前 T-1 个编号、预测后 T-1 个；只有“正文与 <eos>”这几格的预测计入损失。
"""

from __future__ import annotations

import difflib
import hashlib
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import torch

from .common import DEFAULT_DATA, DataFileError, atomic_write_text, read_json

SPECIAL = ("<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<5>", "<7>")
"""特殊标记，永远排在汉字表最前面：编号 0…6。"""
PAD, UNK, BOS, EOS, SEP, FIVE, SEVEN = range(len(SPECIAL))


@dataclass(frozen=True)
class Form:
    """一种绝句体裁。name 是语料里 ``record["form"]`` 的写法，line_length 是每句几个字
    （``./poet write --form 5/7`` 用它），token 是条件区里代表它的特殊标记（第 06 课）。"""

    name: str
    line_length: int
    token: int


FORMS = (Form("五言绝句", 5, FIVE), Form("七言绝句", 7, SEVEN))
"""课程的两种体裁。"""


def form_of(*, name: str | None = None, line_length: int | None = None, token: int | None = None) -> Form:
    """按一个字段找体裁：``form_of(name="五言绝句")``、``form_of(line_length=7)``、``form_of(token=FIVE)``。

    Raises:
        TypeError: 给的字段不是恰好一个。
        KeyError: 没有这样的体裁。
    """
    given = {k: v for k, v in (("name", name), ("line_length", line_length), ("token", token)) if v is not None}
    if len(given) != 1:
        raise TypeError("form_of 只按 name、line_length、token 中的一个找")
    ((field, value),) = given.items()
    for form in FORMS:
        if getattr(form, field) == value:
            return form
    raise KeyError(f"没有 {field} 为 {value!r} 的体裁")


LINE_ENDS = "，。？！"
"""一句诗结尾允许的标点。"""

PUNCT_MAP = str.maketrans(
    {",": "，", ".": "。", "?": "？", "!": "！", ";": "，", "；": "，", ":": "，", "：": "，", "、": "，"}
)
"""半角标点和不作句读用的全角标点，统一成绝句里用的四种（clean_record 与建语料的 courseware/corpus/build.py 共用）。"""
_MISSING_GLYPHS = set("□■○●◎〇�")
_BRACKETS = set("()（）[]【】〔〕《》〈〉<>{}「」『』")
LINE_PATTERN = re.compile(f"[^{LINE_ENDS}]+[{LINE_ENDS}]")
"""一句诗：不是句末标点的字，接一个句末标点（clean_record、split_lines 与建语料的 courseware/corpus/build.py 共用）。"""

# 选关键词时跳过的虚字与过于常见的字：它们说不出一首诗在写什么
FUNCTION_CHARS = set("不之而其以于与也乃亦且所为者何此彼矣焉哉兮乎无有一是在自已来去得上下中")


class BadRecord(ValueError):
    """一条原始记录不能作为绝句收入语料；``reason`` 是简短的中文原因。"""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def is_hanzi(ch: str) -> bool:
    """ch 是否是一个汉字（CJK 统一表意文字，含各扩展区）。"""
    return unicodedata.name(ch, "").startswith("CJK UNIFIED IDEOGRAPH")


@lru_cache(maxsize=1)
def _shipped_t2s() -> dict[str, str]:
    return read_json(DEFAULT_DATA / "t2s.json")


def to_simplified(text: str) -> str:
    """逐字把繁体换成简体，用随课程发布的对照表 data/t2s.json（由 OpenCC t2s 在建语料时生成）。"""
    table = _shipped_t2s()
    return "".join(table.get(ch, ch) for ch in text)


def clean_record(raw: dict, convert: Callable[[str], str] | None = None) -> dict:
    """把一条原始记录清洗成语料里的一首绝句（第 04 课）。

    Args:
        raw: 至少含 ``paragraphs``（字符串列表）或 ``text``；可带 id、dynasty、author、title。
        convert: 繁转简函数；默认用 :func:`to_simplified`。建语料时传入 OpenCC 的 t2s，
            它按词转换，比逐字对照更准。

    Returns:
        dict：id、dynasty、author、title、form（五言绝句/七言绝句）、text（带标点的全文）。

    Raises:
        BadRecord: 有缺字、括注、拉丁字母或数字、其他符号，不是四句，或句长不是全 5 / 全 7。
    """
    convert = convert or to_simplified
    text = raw.get("text") or "".join(raw.get("paragraphs") or [])
    text = convert("".join(text.split())).translate(PUNCT_MAP)
    if not text:
        raise BadRecord("空记录")
    for ch in text:
        if ch in _MISSING_GLYPHS:
            raise BadRecord("有缺字")
        if ch in _BRACKETS:
            raise BadRecord("有括注")
        if ch.isascii() and ch.isalnum() or unicodedata.category(ch) == "Nd":
            raise BadRecord("有拉丁字母或数字")
        if ch not in LINE_ENDS and not is_hanzi(ch):
            raise BadRecord("有其他符号")
    lines = LINE_PATTERN.findall(text)
    if "".join(lines) != text:
        raise BadRecord("结尾缺少标点")
    if len(lines) != 4:
        raise BadRecord("不是四句")
    sizes = {len(line) - 1 for line in lines}
    if len(sizes) != 1:
        raise BadRecord("句子长短不一")
    size = sizes.pop()
    if size not in (5, 7):
        raise BadRecord("不是五言或七言")
    return {
        "id": raw.get("id", ""),
        "dynasty": raw.get("dynasty", ""),
        "author": convert(raw.get("author", "")),
        "title": convert(raw.get("title", "")),
        "form": form_of(line_length=size).name,
        "text": text,
    }


def split_lines(text: str) -> list[str]:
    """把一首诗的全文切成句，每句不带结尾标点。"""
    return [line[:-1] for line in whole_lines(text)]


def whole_lines(text: str) -> list[str]:
    """把一首诗的全文切成句，每句带着结尾标点（结尾没有标点的残段不算一句）。"""
    return LINE_PATTERN.findall(text)


def poem_body(text: str) -> str:
    """去掉标点、只留汉字的正文。"""
    return "".join(split_lines(text))


def split_of(poem_id: str) -> str:
    """由 id 的哈希固定划分：约 90% train、5% val、5% test，在每台机器上都一样。"""
    bucket = int(hashlib.sha1(poem_id.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "train" if bucket < 90 else ("val" if bucket < 95 else "test")


class Tokenizer:
    """汉字表：特殊标记在前，然后是训练集里出现至少 ``min_count`` 次的字（按频数降序、同频按码位）。

    一个字对应一个编号；表外的字编码成 ``<unk>``（编号 1）。表随课程发布在 data/vocab.json，
    因此同一个字在每台机器上编号相同，存档的模型也能互相加载。

    Attributes:
        tokens: 编号 → 字符串。
        counts: 每个字在训练集里出现的次数（特殊标记为 0）。
        doc_freq: 每个字出现在多少首训练诗里（用于 :func:`keywords_for`）。
        n_docs: 训练诗的首数。
    """

    def __init__(
        self,
        tokens: Sequence[str],
        counts: Sequence[int] | None = None,
        doc_freq: Sequence[int] | None = None,
        n_docs: int = 0,
        min_count: int = 2,
    ):
        if tuple(tokens[: len(SPECIAL)]) != SPECIAL:
            raise ValueError("汉字表必须以 SPECIAL 开头")
        self.tokens = list(tokens)
        self.counts = list(counts or [0] * len(tokens))
        self.doc_freq = list(doc_freq or [0] * len(tokens))
        self.n_docs = n_docs
        self.min_count = min_count
        self.stoi = {t: i for i, t in enumerate(self.tokens)}

    @classmethod
    def build(cls, texts: Iterable[str], min_count: int = 2) -> Tokenizer:
        """从一组（训练集）诗文建表，标点也算字。"""
        counts: Counter[str] = Counter()
        docs: Counter[str] = Counter()
        n_docs = 0
        for text in texts:
            counts.update(text)
            docs.update(set(text))
            n_docs += 1
        chars = sorted((c for c, n in counts.items() if n >= min_count), key=lambda c: (-counts[c], ord(c)))
        tokens = list(SPECIAL) + chars
        return cls(
            tokens,
            [0] * len(SPECIAL) + [counts[c] for c in chars],
            [0] * len(SPECIAL) + [docs[c] for c in chars],
            n_docs,
            min_count,
        )

    @classmethod
    def load(cls, path: str | Path = DEFAULT_DATA / "vocab.json") -> Tokenizer:
        """读 vocab.json。Raises: DataFileError（文件缺失或内容不对）。"""
        d = read_json(path)
        try:
            return cls(d["tokens"], d["counts"], d["doc_freq"], d["n_docs"], d["min_count"])
        except (KeyError, TypeError, ValueError):
            raise DataFileError(f"{path} 不是本课程的汉字表文件") from None

    def save(self, path: str | Path) -> None:
        """原子写入 vocab.json（一行一个字段，便于 git diff）。"""
        import json

        fields = {
            "min_count": self.min_count,
            "n_docs": self.n_docs,
            "tokens": self.tokens,
            "counts": self.counts,
            "doc_freq": self.doc_freq,
        }
        body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
        atomic_write_text(path, "{\n" + body + "\n}\n")

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, ch: str) -> bool:
        return ch in self.stoi and self.stoi[ch] >= len(SPECIAL)

    def encode(self, text: str) -> list[int]:
        """逐字编码；表外的字得到 UNK。"""
        return [self.stoi.get(ch, UNK) for ch in text]

    def decode(self, ids: Iterable[int], skip_special: bool = False) -> str:
        """编号 → 文字；``skip_special`` 为真时丢掉特殊标记。"""
        out = [self.tokens[int(i)] for i in ids]
        return "".join(t for t in out if not (skip_special and t in SPECIAL))

    @property
    def vocab_hash(self) -> str:
        """汉字表的指纹；存档里记下它，加载时确认模型与表是同一套编号。"""
        return hashlib.sha256("\n".join(self.tokens).encode("utf-8")).hexdigest()[:16]


@lru_cache(maxsize=1)
def default_tokenizer() -> Tokenizer:
    """随课程发布的汉字表（只读一次）。"""
    return Tokenizer.load()


def keywords_for(record: dict, tokenizer: Tokenizer | None = None, k: int | None = None) -> list[str]:
    """为一首诗挑 1–3 个关键词（第 06 课）：正文里按 TF-IDF 打分最高的字。

    TF 是字在这首诗里出现的次数，IDF = ln(N / (1 + df))，df 是含这个字的训练诗首数。
    跳过虚字（FUNCTION_CHARS）、标点和表外字。同分时先出现的字在前。结果是确定的：
    关键词个数 k 缺省时由 id 的哈希定为 1、2 或 3，让模型见过各种长度的条件区。

    Returns:
        关键词列表，按得分从高到低。
    """
    tok = tokenizer or default_tokenizer()
    body = poem_body(record["text"])
    if k is None:
        k = 1 + int(hashlib.sha1(record.get("id", body).encode("utf-8")).hexdigest()[:8], 16) % 3
    tf = Counter(body)
    first = {ch: body.index(ch) for ch in tf}
    scored = []
    for ch, n in tf.items():
        if ch in FUNCTION_CHARS or ch not in tok:
            continue
        idf = math.log(max(tok.n_docs, 1) / (1 + tok.doc_freq[tok.stoi[ch]]))
        scored.append((-n * idf, first[ch], ch))
    return [ch for _, _, ch in sorted(scored)[:k]]


def drops_keywords(record: dict, keyword_dropout: float) -> bool:
    """这首训练诗是否不带关键词（keyword dropout，第 06 课）：由 id 的哈希定，每一轮都一样。

    ``keyword_dropout`` 是这样的诗占的比例（0 表示每首都带）。用的是哈希的第 9–16 位十六进制数，
    与 :func:`keywords_for` 定关键词个数的前 8 位无关。
    """
    digest = hashlib.sha1(record["id"].encode("utf-8")).hexdigest()
    return int(digest[8:16], 16) / 16**8 < keyword_dropout


def condition_ids(form: Form, keywords: str, tokenizer: Tokenizer) -> list[int]:
    """条件区的编号 ``<bos> <form> keyword… <sep>``：训练样本的开头，也是写诗时给模型的开头。"""
    return [BOS, form.token] + tokenizer.encode(keywords) + [SEP]


def encode_sample(record: dict, tokenizer: Tokenizer, keywords: Sequence[str] | None = None) -> list[int]:
    """一首诗的编号序列：``<bos> <form> keyword… <sep> poem… <eos>``（正文带标点）。"""
    kws = "".join(keywords_for(record, tokenizer) if keywords is None else keywords)
    return condition_ids(form_of(name=record["form"]), kws, tokenizer) + tokenizer.encode(record["text"]) + [EOS]


MAX_CONDITION = 3
"""条件区最多放几个字：base、tiny 预设的训练样本带 1–3 个关键词（data.keywords_for），regulated 预设见过 0–4 个
（batches.KEYWORD_COUNTS）；放 3 个以内，两种模型都见过这样长的条件区。"""


def condition(keywords: str, acrostic: str, tokenizer: Tokenizer) -> str:
    """放进条件区的字：给定的关键词与藏头字（去掉重复）不多于 :data:`MAX_CONDITION` 个时原样放；
    多了就按训练时排关键词的办法（IDF 高的、即少见的字在前）取 MAX_CONDITION 个。

    训练样本的条件区有 k 个字（base、tiny 预设 1–3 个，regulated 预设 0–4 个），正文从第 3 + k 个位置开始。
    四个关键词、或藏头诗拿四个藏头字作条件，对只见过 1–3 个的模型，正文就落在它没见过的位置上，押韵与句长随之乱掉；
    取三个放进条件区，剩下的字由受约束解码写进诗里（Constraint 的 missing 与藏头字）。
    """
    chars = list(dict.fromkeys(keywords + acrostic))
    if len(chars) <= MAX_CONDITION:
        return "".join(chars)
    # 与 keywords_for 一样按 IDF 排：文档频数小的在前；同分保持给定的次序
    ranked = sorted(chars, key=lambda ch: tokenizer.doc_freq[tokenizer.stoi[ch]])
    return "".join(ranked[:MAX_CONDITION])


def loss_mask_for(ids: Sequence[int]) -> list[bool]:
    """与 ``ids[1:]``（即预测目标）对齐的掩码：目标在 ``<sep>`` 之后（正文与 ``<eos>``）才计入损失。"""
    sep_at = list(ids).index(SEP)
    return [t > sep_at for t in range(1, len(ids))]


def make_batch(samples: Sequence[Sequence[int]], context_length: int | None = None):
    """把若干条编号序列排成一批。

    输入 ``x`` 是每条的前 n-1 个编号，目标 ``y`` 是后 n-1 个；用 PAD 补齐到本批最长一条
    （给了 ``context_length`` 就补到它），补出来的格子掩码为 False。

    Returns:
        (x, y, mask)：形状都是 [B, T]，dtype 为 long、long、bool。

    Raises:
        ValueError: 某条样本的输入长于 ``context_length``。
    """
    longest = max(len(s) - 1 for s in samples)
    T = context_length or longest
    if longest > T:
        raise ValueError(f"样本长 {longest} 个位置，超过前文长度 context_length={T}")
    x = torch.full((len(samples), T), PAD, dtype=torch.long)
    y = torch.full((len(samples), T), PAD, dtype=torch.long)
    mask = torch.zeros((len(samples), T), dtype=torch.bool)
    for b, s in enumerate(samples):
        n = len(s) - 1
        x[b, :n] = torch.tensor(s[:-1])
        y[b, :n] = torch.tensor(s[1:])
        mask[b, :n] = torch.tensor(loss_mask_for(s))
    return x, y, mask


SPLITS = ("train", "val", "test")
"""语料的三份：训练、验证、测试（按 id 的哈希固定，见 :func:`split_of`）。"""


@lru_cache(maxsize=1)
def _all_poems(path: Path) -> tuple[dict, ...]:
    from .common import read_jsonl

    return tuple(read_jsonl(path))


@lru_cache(maxsize=16)
def load_poems(
    split: str | None = None,
    limit: int | None = None,
    path: str | Path = DEFAULT_DATA / "poems.jsonl",
    author: str | None = None,
) -> tuple[dict, ...]:
    """读语料（整个文件只读一次并缓存）：取一份诗的唯一办法。

    Args:
        split: ``"train"``、``"val"``、``"test"`` 只返回那一份；None 返回全部。
        limit: 给了时在这一份里等距取 limit 首（语料按朝代排列，唐在前；等距取的子集才像整份）。
            训练时的验证、``./poet eval`` 与各课实验用同一个子集。
        author: 给了时只要这位诗人的诗（微调成一位诗人的口吻，第 26 课；名字先用 :func:`author_problem` 查过）。

    Raises:
        ValueError: split 不是 None 或 SPLITS 之一，或 limit 不是正数。
        poetry_gpt.common.DataFileError: 文件缺失或不是合法的 JSON Lines。
    """
    if split is not None and split not in SPLITS:
        raise ValueError(f"split 应是 {'、'.join(SPLITS)} 之一，收到 {split!r}")
    if limit is not None and limit < 1:
        raise ValueError(f"limit 要是正整数，收到 {limit!r}")
    poems = tuple(
        p
        for p in _all_poems(Path(path))
        if (split is None or p["split"] == split) and (author is None or p["author"] == author)
    )
    if limit is not None and limit < len(poems):
        poems = poems[:: len(poems) // limit][:limit]
    return poems


MIN_AUTHOR_POEMS = 100
"""微调成一位诗人的口吻（``./poet train --author``，第 26 课）至少要这位诗人在 train 里有多少首绝句：
再少，几分钟的微调只是把这几首背下来，val 里也留不出几首来验证。"""


def author_problem(author: str) -> str | None:
    """``--author`` 选的诗人为什么不能用来微调：语料里没有（说出名字相近的诗人），train 里的绝句少于
    :data:`MIN_AUTHOR_POEMS` 首，或 val 里一首也没有（没有留出来验证的诗）。能用时返回 None。"""
    counts = Counter(p["author"] for p in load_poems("train"))
    enough = [a for a, n in counts.most_common() if n >= MIN_AUTHOR_POEMS]
    examples = "、".join(f"{a}（{counts[a]:,} 首）" for a in enough[:5])
    n = counts.get(author, 0)
    if n == 0:
        near = [a for a in enough if author in a or a in author]
        near += difflib.get_close_matches(author, enough, n=5, cutoff=0.3)
        near = list(dict.fromkeys(near))[:5]
        hint = f"名字相近、诗够多的有：{'、'.join(near)}" if near else f"诗最多的几位：{examples}"
        return f"语料里没有诗人“{author}”的绝句；{hint}"
    if n < MIN_AUTHOR_POEMS:
        return (
            f"{author} 在 train 里只有 {n} 首绝句，少于 {MIN_AUTHOR_POEMS} 首：几分钟的微调只会把这几首背下来。"
            f"绝句够多的诗人有 {len(enough)} 位，最多的几位：{examples}"
        )
    if not load_poems("val", author=author):
        return f"{author} 的绝句没有一首分到 val，留不出验证的诗，看不出微调学到了多少；请换一位诗人"
    return None
