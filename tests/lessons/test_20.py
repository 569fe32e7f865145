"""第 20 课（逐字生成）：练习（带 KV 缓存的注意力）的参考答案与模型一致；错误答案都过不了 ./poet check。"""

import importlib.util

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, wrong_verdict

from courseware.catalogue import BY_NUMBER
from courseware.grading import reference
from poetry_gpt.model import ModelConfig


def load_solution(number):
    """lessons/NN/solution.py 当模块导入（只为取 solve）。"""
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 第 20 课：带 KV 缓存的一步注意力 ----------

_CAT_20 = """
    past, T = past_keys.shape[0], q.shape[0]
    keys = torch.cat([past_keys, k])
    values = torch.cat([past_values, v])
    S = past + T
    scores = q @ keys.T / math.sqrt(q.shape[-1])
"""


def attend_20(allowed="torch.ones(S, S, dtype=torch.bool).tril()[past:past + T, :S]", dim="-1", head=_CAT_20):
    return (
        head
        + f"""
    allowed = {allowed}
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim={dim})
    return weights @ values, keys, values
"""
    )


BANK = {
    "不加遮挡（新块里的字看见了后文）": _CAT_20
    + """
    return torch.softmax(scores, dim=-1) @ values, keys, values
    """,
    "遮挡取 causal[:T, :S]（忘了 past 的偏移）": attend_20("torch.ones(S, S, dtype=torch.bool).tril()[:T, :S]"),
    "遮挡是 [T, S] 的下三角（tril 从左上角对齐）": attend_20("torch.ones(T, S, dtype=torch.bool).tril()"),
    "缓存空着时直接交回 k、v 本身（与输入共用内存）": """
    past, T = past_keys.shape[0], q.shape[0]
    keys = k if past == 0 else torch.cat([past_keys, k])
    values = v if past == 0 else torch.cat([past_values, v])
    S = past + T
    scores = q @ keys.T / math.sqrt(q.shape[-1])
    allowed = torch.ones(S, S, dtype=torch.bool).tril()[past : past + T, :S]
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ values, keys, values
    """,
    "只看新来的 k、v，没接上缓存": """
    scores = q @ k.T / math.sqrt(q.shape[-1])
    T = q.shape[0]
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    out = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
    return out, torch.cat([past_keys, k]), torch.cat([past_values, v])
    """,
    "接缓存的顺序反了（新的在前）": attend_20(
        head=_CAT_20.replace("torch.cat([past_keys, k])", "torch.cat([k, past_keys])").replace(
            "torch.cat([past_values, v])", "torch.cat([v, past_values])"
        )
    ),
    "没有除以 √D": attend_20(head=_CAT_20.replace(" / math.sqrt(q.shape[-1])", "")),
    "除以 √S 而不是 √D": attend_20(head=_CAT_20.replace("math.sqrt(q.shape[-1])", "math.sqrt(S)")),
    "softmax 做在倒数第二维": attend_20(dim="-2"),
    "scaled_dot_product_attention 配 is_causal=True（左上角对齐）": """
    from torch.nn import functional as F
    keys, values = torch.cat([past_keys, k]), torch.cat([past_values, v])
    return F.scaled_dot_product_attention(q, keys, values, is_causal=True), keys, values
    """,
    "返回的缓存没接上新位置": _CAT_20
    + """
    allowed = torch.ones(S, S, dtype=torch.bool).tril()[past:past + T, :S]
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ values, past_keys, past_values
    """,
    "捷径：调用包里的 CausalAttention.weights": """
    from poetry_gpt.model import CausalAttention, ModelConfig
    keys, values = torch.cat([past_keys, k]), torch.cat([past_values, v])
    head = CausalAttention(ModelConfig(width=q.shape[-1], n_heads=1))
    weights = head.weights(q[None, None], keys[None, None], past_keys.shape[0])[0, 0]
    return weights @ values, keys, values
    """,
}


@pytest.mark.parametrize("name", BANK)
def test_lesson_20_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(20, name, BANK[name], tmp_path)


def test_lesson_20_scaled_dot_product_attention_with_the_right_mask_passes(tmp_path):
    """torch 的 scaled_dot_product_attention 配上 causal[past:past+T, :S] 是对的：规则不拦它。"""
    body = """
    from torch.nn import functional as F
    past, T = past_keys.shape[0], q.shape[0]
    keys, values = torch.cat([past_keys, k]), torch.cat([past_values, v])
    S = past + T
    mask = torch.ones(S, S, dtype=torch.bool).tril()[past:past + T]
    return F.scaled_dot_product_attention(q, keys, values, attn_mask=mask), keys, values
    """
    verdict = wrong_verdict(20, body, tmp_path)
    assert verdict.passed, verdict.message


def test_lesson_20_cases_cover_the_edges():
    """用例里有：缓存是空的、逐字生成（T = 1）、缓存之后再送一段（T ≥ 2）、写到第 64 个位置、真实模型的 q、k、v。"""
    cases, _ = reference(BY_NUMBER[20], 20007)
    kinds = set()
    for q, k, v, past_keys, past_values in cases:
        past, T = past_keys.shape[0], q.shape[0]
        kinds.add("缓存空" if past == 0 else "逐字" if T == 1 else "接着一段")
        if past + T == 64:
            kinds.add("第 64 个位置")
    assert kinds == {"缓存空", "逐字", "接着一段", "第 64 个位置"}, kinds


def test_lesson_20_solution_is_the_models_cached_attention():
    """参考答案 = CausalAttention 在 KVCache 上算的那一步（weights(q, k, past) @ v，一个头）= 整段重算的后 T 行。"""
    from poetry_gpt.model import CausalAttention, KVCache

    solve = load_solution(20).solve
    torch.manual_seed(0)
    attention = CausalAttention(ModelConfig(vocab_size=10, context_length=16, width=8, n_heads=1)).eval()
    x = torch.randn(1, 11, 8)
    with torch.no_grad():
        q, k, v = (attention.split_heads(t) for t in attention.qkv(x).split(8, dim=2))
        full = attention.weights(q, k) @ v  # 整段重算 [1, 1, 11, 8]
        cache = KVCache(1)
        keys, values = torch.zeros(0, 8), torch.zeros(0, 8)
        for start, end in ((0, 4), (4, 5), (5, 8), (8, 9), (9, 10), (10, 11)):
            past = len(cache)
            ck, cv = cache.extend(0, k[:, :, start:end], v[:, :, start:end])
            theirs = attention.weights(q[:, :, start:end], ck, past) @ cv
            out, keys, values = solve(q[0, 0, start:end], k[0, 0, start:end], v[0, 0, start:end], keys, values)
            assert torch.allclose(out, theirs[0, 0], atol=1e-6) and torch.allclose(
                out, full[0, 0, start:end], atol=1e-5
            )
            assert torch.equal(keys, ck[0, 0]) and torch.equal(values, cv[0, 0])
