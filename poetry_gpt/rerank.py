"""先写几份，再挑一份（sample-then-rerank，第 25 课）：给同一个提示的几份草稿打分，留下分数最高的。

两种分数（名字在 settings.SCORES）：

- ``"likelihood"``：模型自己给正文与 <eos> 每个字的平均对数概率（奈特/字，Poem.log_prob，写的时候顺手记下）。
  模型觉得越顺的诗分越高；代价是它偏爱常见的字与说法（“安全”的诗），几首挑出来的诗彼此更像，distinct-2 更低。
- ``"coherence"``：在 likelihood 上加第三、四句与第一、二句的点互信息（PMI，每字平均）：
  log p(第三、四句 | 条件区、第一、二句) − log p(第三、四句 | 条件区，放在诗的开头)。
  后两句读了前两句以后变得更可能，说明它们接得上；与前两句无关的后两句 PMI 接近 0，相抵触的为负。
  针对读者常说的毛病：后两句接不上前两句、前后的景象相矛盾。
"""

from __future__ import annotations

import torch

from .data import EOS, Tokenizer, condition_ids, form_of, whole_lines
from .model import PoetryGPT
from .settings import SCORES


@torch.inference_mode()
def continuation_log_probs(model: PoetryGPT, sequences: list[tuple[list[int], list[int]]]) -> list[float]:
    """每对 (前文, 续写) 上，模型给续写里每个编号的对数概率之和（奈特）。

    一批一次前向：各序列 前文 + 续写 在后面补 <eos> 补齐（因果注意力，补在后面的不影响前面的位置），
    只取续写那几格的目标。前文至少 1 个编号，前文加续写不超过 context_length + 1。
    """
    device = next(model.parameters()).device
    joined = [prefix + cont for prefix, cont in sequences]
    width = max(len(s) for s in joined)
    ids = torch.tensor([s + [EOS] * (width - len(s)) for s in joined], device=device)
    logits, _ = model(ids[:, :-1])  # [N, width-1, V]
    picked = torch.log_softmax(logits.float(), -1).gather(-1, ids[:, 1:, None])[..., 0].cpu()  # [N, width-1]
    return [picked[i, len(p) - 1 : len(p) - 1 + len(c)].sum().item() for i, (p, c) in enumerate(sequences)]


def line_pmi(model: PoetryGPT, tokenizer: Tokenizer, poems) -> list[float]:
    """每首诗第三、四句与第一、二句的点互信息，按第三、四句的字数（含标点）平均（奈特/字）。

    poems 是 poetry_gpt.generate.Poem（用到 text、form、condition）；不够四句的诗（不受约束时可能）记 0。
    """
    pairs, where = [], []
    for i, poem in enumerate(poems):
        lines = whole_lines(poem.text)
        if len(lines) < 4:
            continue
        head = condition_ids(form_of(line_length=poem.form), poem.condition, tokenizer)
        first, second = tokenizer.encode("".join(lines[:2])), tokenizer.encode("".join(lines[2:4]))
        pairs += [(head + first, second), (head, second)]
        where.append((i, len(second)))
    sums = continuation_log_probs(model, pairs) if pairs else []
    pmi = [0.0] * len(poems)
    for k, (i, n) in enumerate(where):
        pmi[i] = (sums[2 * k] - sums[2 * k + 1]) / n
    return pmi


def score_drafts(model: PoetryGPT, tokenizer: Tokenizer, poems, score: str) -> list[float]:
    """几份草稿各自的分数（越高越好）：score 是 settings.SCORES 之一（见本模块开头）。

    Raises:
        ValueError: score 不是 SCORES 之一。
    """
    if score not in SCORES:
        raise ValueError(f"挑草稿的分数只能是 {'、'.join(SCORES)} 之一，收到 {score!r}")
    scores = [p.log_prob for p in poems]
    if score == "coherence":
        scores = [s + pmi for s, pmi in zip(scores, line_pmi(model, tokenizer, poems))]
    return scores


def best(scores: list[float], among: list[int]) -> int:
    """among（下标，不能为空）里分数最高的那一份的下标；并列时取最前面的。"""
    return max(among, key=lambda i: (scores[i], -i))
