"""受约束解码（第 22、23 课）：每一格只允许合乎格式的字。

句中只能是汉字（没有特殊标记、没有 <unk>），句尾只能是标点，写满四句就只能是 <eos>——长度是定死的，
所以一定会停（第 22 课）。藏头诗每句第一个字是指定的；给定的字如果快没位置了，就强制写进剩下的格子
（第 23 课）；一句写到最后一个字时，不许与前面某句完全相同。rules 不是 PLAIN 时，汉字格子再经
:class:`poetry_gpt.verse.Verse` 收紧（押韵、平仄、重复，第 24 课）。
"""

from __future__ import annotations

import torch

from .data import EOS, Tokenizer, is_hanzi
from .settings import PLAIN, VERSE, Rules
from .verse import Verse

KEYWORD_BONUS = 2.0
"""受约束解码时给还没写出的关键词的 logits 加上的数（奈特）：概率约放大 e² ≈ 7.4 倍。"""
LINE_END_CHOICES = ("，？！", "。？！")
"""第 0、2 句与第 1、3 句（从 0 数，即第一、三句与第二、四句）句尾允许的标点。清洗语料认 ，。？！ 四种（data.LINE_ENDS），可语料里没有一首诗
用 ！，汉字表里就没有它：:class:`Constraint` 只用表里有的，所以今天实际是 ，？ 与 。？（第 22 课）。"""


class Constraint:
    """受约束解码的状态：第几句、句中第几格、还差哪些必须出现的字（第 22、23 课）。

    ``allowed()`` 返回这一格允许的编号 [V] bool；``apply(logits)`` 据此改写 logits；
    ``advance(token)`` 记下写出的字。rules 不是 PLAIN 时，汉字格子再经 :class:`poetry_gpt.verse.Verse`
    收紧（押韵、平仄、重复）与调低（用过的字），第 24 课。
    """

    def __init__(self, tokenizer: Tokenizer, form: int, required: str = "", acrostic: str = "", rules: Rules = VERSE):
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
