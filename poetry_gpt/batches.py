"""每一步训练的一批（batch，第 06、19 课）：取哪些诗、条件区放哪些关键词。

两种取法：

- 固定的（tiny 与 base 预设）：每首绝句的样本编好一次，关键词是第 06 课的 TF-IDF（``data.keywords_for``），
  每一轮都一样；
- 每步重抽的（``TrainConfig.fresh_keywords``，regulated 预设；随课程发布的模型这样训练，见 data/MODEL.md）：关键词在诗里的实字中按 IDF 加权抽，每一步重抽，
  个数见 :data:`KEYWORD_COUNTS`。TF-IDF 偏爱诗里用了两次的字，模型于是学成“给的字要写两遍”；
  只按 IDF 抽，学到的是“给的字属于这首诗”。

``TrainConfig.regulated`` 再加上 data/regulated.txt.gz 的律诗、排律切成的四句窗口（每隔一联起一个窗口：
一首律诗给出首颔、颔颈、颈尾三个窗口），体裁标记与同样句长的绝句相同；``finetune_share`` 那最后一份步数只用绝句，
让模型最后学的是绝句的起承转合。窗口是绝句的 8 倍多，所以此前每一轮里绝句重复 ``quatrain_repeats`` 遍。
"""

from __future__ import annotations

import gzip
import math
import random
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import torch

from .common import DEFAULT_DATA, DataFileError
from .data import (
    FUNCTION_CHARS,
    UNK,
    Tokenizer,
    drops_keywords,
    encode_sample,
    form_of,
    load_poems,
    poem_body,
    split_lines,
)
from .train_config import TrainConfig

KEYWORD_COUNTS = (0, 1, 1, 2, 2, 3, 4)
"""每步重抽时，一首诗的关键词个数从这里等可能地取：0 就是不带关键词（模型也学会只凭体裁写诗），
4 覆盖 ``--plain`` 下四个关键词与藏头放进条件区的长度。"""

REGULATED_PATH = DEFAULT_DATA / "regulated.txt.gz"


@lru_cache(maxsize=1)
def load_regulated(path: str | Path = REGULATED_PATH) -> tuple[str, ...]:
    """读 data/regulated.txt.gz：一行一首绝句以外的近体诗（带标点的简体正文，见 data/SOURCE.md）。

    Raises:
        DataFileError: 文件缺失或不是 gzip 压缩的 UTF-8 文本。
    """
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return tuple(line.rstrip("\n") for line in f if line.strip())
    except (OSError, UnicodeDecodeError, EOFError) as e:
        raise DataFileError(f"读不了 {path}：{e}") from None


def regulated_windows(text: str) -> list[str]:
    """一首六句以上的诗按联切成的四句窗口，每隔一联起一个（相邻窗口共用一联），带标点。

    例：八句的律诗 → 第 1–4、3–6、5–8 句三个窗口。
    """
    lines = [line + end for line, end in zip(split_lines(text), (ch for ch in text if ch in "，。？！"))]
    return ["".join(lines[i : i + 4]) for i in range(0, len(lines) - 3, 2)]


def keyword_candidates(text: str, tokenizer: Tokenizer) -> tuple[list[int], list[float]]:
    """诗里能当关键词的字（不是虚字、在汉字表里；每个字一次，按首次出现的顺序）的编号与 IDF。

    IDF = ln(N / (1 + df))，与 ``data.keywords_for`` 相同；不乘这个字在诗里出现的次数。
    """
    ids, weights = [], []
    for ch in dict.fromkeys(poem_body(text)):
        if ch in FUNCTION_CHARS or ch not in tokenizer:
            continue
        i = tokenizer.stoi[ch]
        ids.append(i)
        weights.append(max(math.log(max(tokenizer.n_docs, 1) / (1 + tokenizer.doc_freq[i])), 1e-3))
    return ids, weights


def draw_keywords(ids: Sequence[int], weights: Sequence[float], k: int, rng: random.Random) -> list[int]:
    """按权重不放回地抽 min(k, len(ids)) 个编号，按抽中的先后排列。"""
    ids, weights, picked = list(ids), list(weights), []
    for _ in range(min(k, len(ids))):
        i = rng.choices(range(len(ids)), weights=weights)[0]
        picked.append(ids.pop(i))
        weights.pop(i)
    return picked


def encode_split(
    split: str,
    tokenizer: Tokenizer,
    limit: int | None = None,
    keyword_dropout: float = 0.0,
    author: str | None = None,
) -> list[list[int]]:
    """``load_poems(split, limit, author=author)`` 选出的每首诗的样本编号（排布见 data.encode_sample）；
    其中 keyword_dropout 那一份（data.drops_keywords）的条件区空着：``<bos> <体裁> <sep> 正文…``。"""
    return [
        encode_sample(p, tokenizer, keywords=() if drops_keywords(p, keyword_dropout) else None)
        for p in load_poems(split, limit, author=author)
    ]


def batch_indices(step: int, n_samples: int, batch_size: int, seed: int) -> list[int]:
    """第 step 步用哪几条样本：每一轮（epoch）按 seed 和轮次打乱一次，依次切块。

    只由 step 决定，所以续训时不必回放前面的取批，也能接着取到同一批。
    """
    per_epoch = n_samples // batch_size
    epoch, k = divmod(step, per_epoch)
    order = torch.randperm(n_samples, generator=torch.Generator().manual_seed(seed * 100003 + epoch))
    return order[k * batch_size : (k + 1) * batch_size].tolist()


class TrainingSamples:
    """一次训练的样本：:meth:`batch` 给出第 step 步的一批编号序列（排布见 ``data.encode_sample``）。

    Args:
        config: 读其中的 train_poems、author、keyword_dropout、fresh_keywords、regulated、quatrain_repeats、finetune_share、
            batch_size、seed、steps。
        tokenizer: 汉字表。
    """

    def __init__(self, config: TrainConfig, tokenizer: Tokenizer):
        self.tokenizer = tokenizer
        if not config.fresh_keywords:
            self.fixed = encode_split("train", tokenizer, config.train_poems, config.keyword_dropout, config.author)
            self.quatrains, self.everything = self.fixed, self.fixed
            return
        self.fixed = None
        self.quatrains = [
            self._prepare(p["text"]) for p in load_poems("train", config.train_poems, author=config.author)
        ]
        windows = [
            self._prepare(w) for text in (load_regulated() if config.regulated else ()) for w in regulated_windows(text)
        ]
        # 窗口里有表外的字就不用：模型不该学着写 <unk>
        self.windows = [w for w in windows if UNK not in tokenizer.encode(w[0]["text"])]
        # 绝句在一轮里重复 quatrain_repeats 遍：窗口是绝句的 8 倍多，不重复时绝句只占一成，val 上的损失降得慢
        self.everything = self.quatrains * config.quatrain_repeats + self.windows

    def _prepare(self, text: str):
        record = {"form": form_of(line_length=len(split_lines(text)[0])).name, "text": text}
        return (record, *keyword_candidates(text, self.tokenizer))

    def finetune_from(self, config: TrainConfig) -> int:
        """从第几步起只用绝句（没有律诗窗口或 finetune_share 为 0 时是 config.steps）。"""
        if self.everything is self.quatrains:
            return config.steps
        return config.steps - round(config.finetune_share * config.steps)

    def batch(self, step: int, config: TrainConfig) -> list[list[int]]:
        """第 step 步的 config.batch_size 条样本；只由 step 与 config 决定（续训接得上）。"""
        switch = self.finetune_from(config)
        pool, at = (self.everything, step) if step < switch else (self.quatrains, step - switch)
        ids = batch_indices(at, len(pool), config.batch_size, config.seed)
        if self.fixed is not None:
            return [pool[i] for i in ids]
        rng = random.Random(f"{config.seed}:{step}")
        out = []
        for i in ids:
            record, cand, weights = pool[i]
            kws = draw_keywords(cand, weights, rng.choice(KEYWORD_COUNTS), rng)
            out.append(encode_sample(record, self.tokenizer, keywords=self.tokenizer.decode(kws)))
        return out
