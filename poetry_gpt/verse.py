"""诗律解码（第 24 课）：在受约束解码（constraints.Constraint，第 22、23 课）之上，让诗押韵、合平仄、不乱重复。

受约束解码只管格式：句中是汉字、句尾是标点、给定的字一定写进去。随课程发布的模型照此写出的诗
（``./poet eval --plain``，数字见 data/MODEL.md 与第 25 课），二、四句押韵且两字不同的五言只有六成多、
七言约八成，三分之二的诗有字用了三次以上。本模块在每一步再收紧或调低几个字，规则是：

- 押韵（``rhyme``）：第四句的最后一个字必须与“韵脚句”同韵（:func:`poetry_gpt.prosody.share_rhyme`：
  两个字各自的平水韵韵部里有一个相同就算），而且不能是前面哪句已经用过的句尾字。
  韵脚句是第二句；第一句以纯平声字收尾时（首句入韵），第一句也是韵脚句，第二句就得与它同韵，
  此后的韵部是两句共有的那几个。一个字属于几个韵部（多音字、几个繁体合成一个简体字）时，
  只要有一个韵部还在“可用的韵部”里就算同韵。表里查不到的字永远不算押韵，第二、四句不用它收尾。
- 平仄（``tones``）：``"strict"`` 每个字都要合近体绝句的某种格式（prosody.TEMPLATES），``"lenient"``
  一三五不论（五言第一、三字），``"off"`` 不管。解码时记着“还可能”的几种格式（平起/仄起、首句入韵与否），
  一个字只要合其中一种就允许；写下后去掉与它不合的格式。句中的字按 prosody.line_tone、句尾字按全部韵部
  取平仄；平仄两读的字与哪种都合，查不到的字在要论的位置上不允许。``"lenient"`` 还守一三五不论的两个
  例外（prosody.tail_fault）：以平声收尾、句末是“仄平平”的句子，倒数第三字不许是纯平声字（三平尾）；
  句末是“平平仄仄平”、倒数第五字写了纯仄声字的，倒数第三字要能读平（孤平拗救：仄平平仄平），免得孤平。
- 重复（``repetition``）：一个字每用过一次，它的 logits 就减 :data:`REPEAT_PENALTY`；用过 :data:`MAX_USES`
  次就不再允许；同一句里相邻的两个字（如“不见”）在诗里已经出现过，就不许再接成同样的组合。
  还没写到的藏头字已经“预订”了一次：在它自己的格子之前，它按多用过一次算（春夏秋冬的“冬”
  不会先在别处写两次、再在第四句句首被迫写第三次）。给定的关键词写过一次以后再多减
  :data:`KEYWORD_PENALTY`：人给一个字，要的是“这首诗写它”，不是把它写两遍（人写的诗里，随手挑的一个字
  用两次以上的不到 5%）。
  句首的几个套语（settings.STOCK_OPENINGS：不知、不见、自是、唯有）的第二个字在句首第二格减去
  :data:`STOCK_PENALTY`：模型写它们比人多一两倍。

收紧时有先后：藏头字与必须写进去的字（Constraint 定的）最先，然后押韵、平仄、重复；哪一条会让这一格
一个字都不剩，就跳过那一条——所以受约束解码的保证（格式、藏头、关键词）不受影响。
"""

from __future__ import annotations

import torch

from . import prosody, rhyme_book
from .data import Tokenizer
from .settings import STOCK_OPENINGS, VERSE, Rules

REPEAT_PENALTY = 1.5
"""一个字每用过一次，它的 logits 减去的数（奈特）：用过一次的字概率约缩小 e^1.5 ≈ 4.5 倍。
叠字（萧萧）在模型眼里常有九成的概率，减过之后仍然常写；“菊菊”这类概率低的重复就很少了。"""
MAX_USES = 2
"""一个字在一首诗里最多用几次。人写的 val 诗（``./poet eval`` 的“人”两列，五言、七言各 100 首）
只有 3%、7% 有字用了 3 次以上（第 25 课）。"""
KEYWORD_PENALTY = 3.0
"""给定的关键词写过一次以后，它的 logits 在 REPEAT_PENALTY 之外再减的数（奈特）：合起来约缩小 e^4.5 ≈ 90 倍，
叠字（依依）与模型极有把握的第二次仍写得出。"""
STOCK_PENALTY = 1.5
"""句首套语的第二个字在句首第二格减去的数（奈特），与 REPEAT_PENALTY 一样约缩小 4.5 倍。"""


def _stock_openings(tokenizer: Tokenizer) -> dict[int, list[int]]:
    """句首套语（:data:`STOCK_OPENINGS`）：第一个字的编号 → 接上就成套语的第二个字的编号。"""
    table: dict[int, list[int]] = {}
    for a, b in STOCK_OPENINGS:
        table.setdefault(tokenizer.stoi[a], []).append(tokenizer.stoi[b])
    return table


class _Tables:
    """汉字表里每个编号的平水韵韵部与平仄，每个汉字表算一次。

    groups [V, 106] float（1 表示属于这个韵部，用矩阵乘法查“与这些韵部有交集”比逐行 any 快得多）；
    ping、ze、known [V] bool：有平声读音、有仄声读音、查得到韵部（句尾用）；ping_line、ze_line [V] bool：
    在句中能读平、能读仄（prosody.line_tone）；stock：句首套语的第一个字 → 接上就成套语的第二个字（adjust 用）。
    """

    def __init__(self, tokenizer: Tokenizer):
        table = prosody.load_table()
        index = {g: i for i, g in enumerate(rhyme_book.GROUPS)}
        level = [prosody.group_tone(g) == prosody.PING for g in rhyme_book.GROUPS]
        pairs = [
            (i, index[g]) for i, token in enumerate(tokenizer.tokens) if token in table for g in table[token]["groups"]
        ]
        self.groups = torch.zeros(len(tokenizer), len(rhyme_book.GROUPS))
        self.groups[torch.tensor(pairs).T.unbind()] = 1.0
        self.level_groups = torch.tensor(level)
        ping, ze = [False] * len(tokenizer), [False] * len(tokenizer)
        for i, g in pairs:
            ping[i] |= level[g]
            ze[i] |= not level[g]
        self.ping, self.ze = torch.tensor(ping), torch.tensor(ze)
        self.known = self.ping | self.ze
        # 句中（不在句尾）的平仄：两读的字按语料里的用法定（prosody.line_tone），如“不”句中只是仄
        inside = [
            prosody.line_tone(token, table) if known else prosody.UNKNOWN
            for token, known in zip(tokenizer.tokens, self.known.tolist())
        ]
        self.ping_line = torch.tensor([t in (prosody.PING, prosody.BOTH) for t in inside])
        self.stock = _stock_openings(tokenizer)
        self.ze_line = torch.tensor([t in (prosody.ZE, prosody.BOTH) for t in inside])

    def sharing(self, groups: torch.Tensor) -> torch.Tensor:
        """[V] bool：属于 groups（[106] bool）里某个韵部的字。"""
        return self.groups @ groups.float() > 0


_TABLES: dict[str, _Tables] = {}


def _tables(tokenizer: Tokenizer) -> _Tables:
    if tokenizer.vocab_hash not in _TABLES:
        _TABLES[tokenizer.vocab_hash] = _Tables(tokenizer)
    return _TABLES[tokenizer.vocab_hash]


def _narrow(mask: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """mask 与 keep 都成立的字；一个都不剩时原样返回 mask（这一条规则让路）。"""
    narrowed = mask & keep
    return narrowed if narrowed.any() else mask


class Verse:
    """一首诗写到哪儿的诗律状态：已用的字、两字组合、句尾字、可用的韵部、还可能的平仄格式。

    :class:`poetry_gpt.constraints.Constraint` 在每个汉字格子上调用 :meth:`narrow`（收紧允许的字 [V] bool）
    与 :meth:`adjust`（调低用过的字的 logits [V]），写下一个汉字后调用 :meth:`advance`。
    """

    def __init__(
        self, tokenizer: Tokenizer, form: int, rules: Rules = VERSE, acrostic: list[int] = (), keywords: list[int] = ()
    ):
        self.rules = rules
        self.keywords = list(keywords)  # 给定的关键词（不含藏头字）的编号：写过一次以后再多调低
        self.acrostic = list(acrostic)  # 每句句首必须写的字的编号（藏头诗）；空表示不是藏头诗
        self.form = form
        self.t = _tables(tokenizer)
        prefix = "五绝" if form == 5 else "七绝"
        self.templates = [lines for name, lines in prosody.TEMPLATES.items() if name.startswith(prefix)]
        # 宽式下不论的位置（从 0 数）：五言第一、三字，七言第一、三、五字；句尾永远要论
        self.free = set() if rules.tones == "strict" else set(range(0, form - 2, 2))
        self.uses = torch.zeros(len(tokenizer))
        self.reserved = torch.zeros(len(tokenizer))  # 还没写到的藏头字：各预订了几次
        for token in self.acrostic:
            self.reserved[token] += 1
        self.bigrams: set[tuple[int, int]] = set()
        self.previous: int | None = None  # 同一句里的前一个字
        self.ends: list[int] = []
        self.current: list[int] = []  # 这一句已经写下的字
        self.rhyme: torch.Tensor | None = None  # [106] bool：还可用的韵部；None 表示韵还没定

    def _tone_table(self, pos: int, tone: str) -> torch.Tensor:
        """第 pos 格能读 tone 的字 [V] bool：句尾看全部韵部，句中看 line_tone。"""
        if pos == self.form - 1:
            return self.t.ping if tone == prosody.PING else self.t.ze
        return self.t.ping_line if tone == prosody.PING else self.t.ze_line

    def _want(self, template, line: int, pos: int) -> torch.Tensor | None:
        """格式 template 在第 line 句第 pos 格许可的字 [V] bool；什么字都行时为 None。

        宽式下不论的格子只有一种例外：以平声收尾的句子的倒数第三字（prosody.tail_fault）——句末“仄平平”时
        它不能是纯平声（三平尾），句末“平平仄仄平”而倒数第五字已写了纯仄声字时它要能读平（孤平拗救）。"""
        pattern = template[line]
        if pos not in self.free:
            return self._tone_table(pos, pattern[pos])
        if pos == self.form - 3 and pattern[-1] == prosody.PING:
            if pattern[-3:] == "仄平平":
                return self.t.ze_line
            head = self.current[self.form - 5]
            if pattern[-5:] == "平平仄仄平" and not self.t.ping_line[head] and self.t.ze_line[head]:
                return self.t.ping_line
        return None

    def _tone_ok(self, line: int, pos: int) -> torch.Tensor | None:
        """这一格合某种还可能的格式的字 [V] bool；不论平仄时为 None。"""
        if self.rules.tones == "off" or not self.templates:
            return None
        wants = [self._want(t, line, pos) for t in self.templates]
        if any(w is None for w in wants):
            return None
        ok = torch.zeros_like(self.t.known)
        for w in wants:
            ok |= w
        return ok

    def _rhyme_ok(self, line: int) -> torch.Tensor | None:
        """第二、四句句尾能用的字 [V] bool；别的句尾为 None。"""
        if not self.rules.rhyme or line not in (1, 3):
            return None
        if self.rhyme is None:  # 第二句、首句不入韵：韵由这一句定，只要查得到韵部
            return self.t.known.clone()
        ok = self.t.sharing(self.rhyme)
        ok[self.ends] = False  # 不用前面哪句的句尾字
        return ok

    def narrow(self, mask: torch.Tensor, line: int, pos: int) -> torch.Tensor:
        """收紧第 line 句（从 0 数）第 pos 个字（从 0 数）允许的字：押韵、平仄、重复，依次让路。"""
        if pos == self.form - 1 and (ok := self._rhyme_ok(line)) is not None:
            mask = _narrow(mask, ok)
        if (ok := self._tone_ok(line, pos)) is not None:
            mask = _narrow(mask, ok)
        if self.rules.repetition:
            keep = self.uses + self.reserved < MAX_USES
            if pos > 0:
                keep[[b for a, b in self.bigrams if a == self.previous]] = False
            mask = _narrow(mask, keep)
        return mask

    def adjust(self, logits: torch.Tensor) -> torch.Tensor:
        """logits [V] → 用过（或预订了）的字减去 REPEAT_PENALTY × 次数，写过的关键词再减 KEYWORD_PENALTY；
        句首第二格上，接成套语的字再减 STOCK_PENALTY（不改传入的张量）。"""
        if not self.rules.repetition:
            return logits
        logits = logits - REPEAT_PENALTY * (self.uses + self.reserved)
        if used := [k for k in self.keywords if self.uses[k] > 0]:
            logits[used] -= KEYWORD_PENALTY
        if len(self.current) == 1 and (seconds := self.t.stock.get(self.current[0])):
            logits[seconds] -= STOCK_PENALTY
        return logits

    def advance(self, token: int, line: int, pos: int) -> None:
        """记下第 line 句第 pos 个字写的是 token。"""
        self.uses[token] += 1
        if pos == 0 and line < len(self.acrostic) and token == self.acrostic[line]:
            self.reserved[token] -= 1  # 预订的那一次兑现了
        if pos > 0:
            self.bigrams.add((self.previous, token))
        self.previous = token
        if self.rules.tones != "off":
            fits = [t for t in self.templates if (w := self._want(t, line, pos)) is None or w[token]]
            self.templates = fits or self.templates  # 被迫写下的字哪种都不合时，不因它放弃格式
        self.current.append(token)
        if pos == self.form - 1:
            self._end_line(token, line)
            self.current = []

    def _end_line(self, token: int, line: int) -> None:
        """一句写完：记下句尾字，定下或收窄可用的韵部。"""
        self.ends.append(token)
        groups = self.t.groups[token] > 0
        if line == 0 and self.t.ping[token] and not self.t.ze[token]:
            self.rhyme = groups.clone()  # 首句以纯平声字收尾：首句入韵
        elif line == 1:
            shared = groups & self.rhyme if self.rhyme is not None else groups
            self.rhyme = shared if shared.any() else groups.clone()
            if self.rules.tones != "off" and (self.rhyme & self.t.level_groups).any():
                self.rhyme = self.rhyme & self.t.level_groups  # 近体诗押平声韵
