"""第 01 课（一首诗从哪里来）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import assert_bank_entry_fails

BANK = {
    "没减去最大值：e 的几千次方溢出成 inf": """
        weights = torch.exp(logits)
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "减去的是最小值": """
        weights = torch.exp(logits - logits[logits != -math.inf].min())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "按概率大于 0 挑候选：分数有限、概率小到 0.0 的字被漏掉": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        kept = [i for i, p in enumerate(probs) if p > 0]
        kept.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in kept[:k]]""",
    "并列时编号大的在前": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], -i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "用 torch.topk：并列时不保证编号小的在前": """
        weights = torch.exp(logits - logits.max())
        probs = weights / weights.sum()
        top = torch.topk(probs, min(k, int(torch.isfinite(logits).sum())))
        return [(chars[i], p) for p, i in zip(top.values.tolist(), top.indices.tolist())]""",
    "返回的是分数 logits，不是概率": """
        values = logits.tolist()
        finite = [i for i, x in enumerate(values) if x != -math.inf]
        finite.sort(key=lambda i: (-values[i], i))
        return [(chars[i], values[i]) for i in finite[:k]]""",
    "只取了 e 的次方，没除以总和": """
        weights = torch.exp(logits - logits.max()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-weights[i], i))
        return [(chars[i], weights[i]) for i in finite[:k]]""",
    "概率是 0 维张量，不是 Python 的 float": """
        weights = torch.exp(logits - logits.max())
        probs = weights / weights.sum()
        finite = [i for i in range(len(chars)) if logits[i] != -math.inf]
        finite.sort(key=lambda i: (-probs[i].item(), i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "多取一个": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k + 1]]""",
    "从小到大排": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "忘了 -inf：被挡掉的字也当候选": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        order = sorted(range(len(chars)), key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in order[:k]]""",
    "只在前 k 个候选里归一": """
        weights = torch.exp(logits - logits.max()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-weights[i], i))
        top = finite[:k]
        total = sum(weights[i] for i in top)
        return [(chars[i], weights[i] / total) for i in top]""",
    "原地减去最大值，改动了 logits": """
        logits -= logits.max()
        weights = torch.exp(logits)
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(1, name, BANK[name], tmp_path)
