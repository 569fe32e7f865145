"""第 20、21 课：逐字生成、KV 缓存与截断采样的规则；练习的参考答案与包里的函数一致；错误答案都过不了 ./poet check。"""
import importlib.util
import textwrap

import pytest
import torch

from poetry_gpt.courseware.catalogue import BY_NUMBER
from poetry_gpt.courseware.grading import reference
from poetry_gpt.data import BOS, EOS, FIVE, SEP, default_tokenizer
from poetry_gpt.generate import write_one
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.sampling import SamplingConfig, filter_logits

from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file, wrong_verdict

TOK = default_tokenizer()


def load_solution(number):
    """lessons/NN/solution.py 当模块导入（只为取 solve）。"""
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module








def kept(t):
    return torch.isfinite(t).tolist()


def test_top_k_keeps_every_tie_with_the_kth_logit():
    logits = torch.tensor([3.0, 2.0, 1.0, 2.0, 0.0])
    assert kept(filter_logits(logits, top_k=2)) == [True, True, False, True, False]  # 留下 3 个
    assert kept(filter_logits(logits, top_k=99)) == [True] * 5


def test_top_p_ties_at_the_boundary_keep_the_smaller_ids():
    # 四个并列的字，概率正好各 1/4：排在前面的概率之和是 0、1/4、1/2、3/4，都能精确表示
    logits = torch.zeros(8)
    logits[4:] = -60.0
    for p, n in ((0.5, 2), (0.5000001, 3), (0.25, 1), (0.75, 3), (0.01, 1)):
        out = kept(filter_logits(logits, top_p=p))
        assert out == [i < n for i in range(8)], (p, out)
    # 与第 k 大分数并列的字留下后，top-p 在剩下的字里重新归一化
    logits = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0, -5.0])
    assert kept(filter_logits(logits, top_k=4, top_p=0.5)) == [False, True, True, False, False, False]


def test_write_one_stops_when_prompt_and_body_fill_the_context():
    """受约束解码写不满前文长度；关掉约束、贪心解码时，前文加正文正好停在 context_length 个位置。"""
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=16, width=32, n_layers=2, n_heads=2)).eval()
    poem = write_one(model, TOK, "月", form=5, sampling=SamplingConfig(temperature=0), constrained=False)
    ids = [BOS, FIVE, TOK.stoi["月"], SEP]
    with torch.no_grad():
        while len(ids) < 16:  # 朴素的循环：每一步重算整段
            token = int(torch.argmax(model(torch.tensor([ids]))[0][0, -1]))
            if token == EOS:
                break
            ids.append(token)
    assert len(ids) == 16, "这个未训练的小模型应当一直写到前文长度"
    assert poem.text == TOK.decode(ids[4:])


# ---------- 第 20 课：带 KV 缓存的一步注意力 ----------

_CAT_20 = """
    past, T = past_keys.shape[0], q.shape[0]
    keys = torch.cat([past_keys, k])
    values = torch.cat([past_values, v])
    S = past + T
    scores = q @ keys.T / math.sqrt(q.shape[-1])
"""


def attend_20(allowed="torch.ones(S, S, dtype=torch.bool).tril()[past:past + T, :S]", dim="-1", head=_CAT_20):
    return head + f"""
    allowed = {allowed}
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim={dim})
    return weights @ values, keys, values
"""


WRONG_20 = {
    "不加遮挡（新块里的字看见了后文）": _CAT_20 + """
    return torch.softmax(scores, dim=-1) @ values, keys, values
    """,
    "遮挡取 causal[:T, :S]（忘了 past 的偏移）": attend_20("torch.ones(S, S, dtype=torch.bool).tril()[:T, :S]"),
    "遮挡是 [T, S] 的下三角（tril 从左上角对齐）": attend_20("torch.ones(T, S, dtype=torch.bool).tril()"),
    "只看新来的 k、v，没接上缓存": """
    scores = q @ k.T / math.sqrt(q.shape[-1])
    T = q.shape[0]
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    out = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
    return out, torch.cat([past_keys, k]), torch.cat([past_values, v])
    """,
    "接缓存的顺序反了（新的在前）": attend_20(head=_CAT_20.replace("torch.cat([past_keys, k])", "torch.cat([k, past_keys])")
                                   .replace("torch.cat([past_values, v])", "torch.cat([v, past_values])")),
    "没有除以 √D": attend_20(head=_CAT_20.replace(" / math.sqrt(q.shape[-1])", "")),
    "除以 √S 而不是 √D": attend_20(head=_CAT_20.replace("math.sqrt(q.shape[-1])", "math.sqrt(S)")),
    "softmax 做在倒数第二维": attend_20(dim="-2"),
    "scaled_dot_product_attention 配 is_causal=True（左上角对齐）": """
    from torch.nn import functional as F
    keys, values = torch.cat([past_keys, k]), torch.cat([past_values, v])
    return F.scaled_dot_product_attention(q, keys, values, is_causal=True), keys, values
    """,
    "返回的缓存没接上新位置": _CAT_20 + """
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


@pytest.mark.parametrize("name", WRONG_20)
def test_lesson_20_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(20, name, WRONG_20[name], tmp_path)


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
        full = attention.weights(q, k) @ v                                   # 整段重算 [1, 1, 11, 8]
        cache = KVCache(1)
        keys, values = torch.zeros(0, 8), torch.zeros(0, 8)
        for start, end in ((0, 4), (4, 5), (5, 8), (8, 9), (9, 10), (10, 11)):
            past = len(cache)
            ck, cv = cache.extend(0, k[:, :, start:end], v[:, :, start:end])
            theirs = attention.weights(q[:, :, start:end], ck, past) @ cv
            out, keys, values = solve(q[0, 0, start:end], k[0, 0, start:end], v[0, 0, start:end], keys, values)
            assert torch.allclose(out, theirs[0, 0], atol=1e-6) and torch.allclose(out, full[0, 0, start:end], atol=1e-5)
            assert torch.equal(keys, ck[0, 0]) and torch.equal(values, cv[0, 0])


# ---------- 第 21 课：温度与 top-k / top-p 截断 ----------

WRONG_21 = {
    "top-k 只留正好 k 个（topk 的下标）": """
        out = logits / temperature
        if top_k:
            keep = torch.topk(out, min(top_k, len(out))).indices
            out = torch.full_like(out, float("-inf")).index_copy(0, keep, out[keep])
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
    """,
    "边界用 > 而不是 ≥（前面之和正好等于 p 时还留着）": """
        out = logits / temperature
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before > top_p]] = float("-inf")
        return out
    """,
    "用含自己的累计概率 ≥ p（越过 p 的那个字也丢了）": """
        out = logits / temperature
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            out = out.clone()
            out[order[torch.cumsum(probs, dim=-1) >= top_p]] = float("-inf")
        return out
    """,
    "先 top-p 再 top-k": """
        out = logits / temperature
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        return out
    """,
    "top-p 用截断前全部字的概率": """
        out = logits / temperature
        full = torch.softmax(out, dim=-1)
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = full[order]
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
    """,
    "截断之后才除以温度": """
        out = logits.clone()
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out[order[before >= top_p]] = float("-inf")
        return out / temperature
    """,
    "并列时编号大的排前面（升序排好再翻转）": """
        out = logits / temperature
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, stable=True).indices.flip(0)
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
    """,
    "原地修改 logits": """
        logits /= temperature
        if top_k:
            kth = torch.topk(logits, min(top_k, len(logits))).values[-1]
            logits[logits < kth] = float("-inf")
        if top_p is not None and top_p < 1:
            order = torch.sort(logits, descending=True, stable=True).indices
            probs = torch.softmax(logits[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            logits[order[before >= top_p]] = float("-inf")
        return logits
    """,
    "丢掉的字设成 -1e9 而不是 -inf": """
        out = logits / temperature
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, -1e9)
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = -1e9
        return out
    """,
    "top_k = 0 当成要截（只判断 is not None）": """
        out = logits / temperature
        if top_k is not None:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
    """,
    "用 float64 算，返回 float64": """
        out = logits.double() / temperature
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
    """,
}
_TOP_P_21 = """
        if top_p is not None and top_p < 1:
            order = {order}
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
"""


def step_21(head, order="torch.sort(out, descending=True, stable=True).indices"):
    return textwrap.dedent(head).strip("\n") + "\n" + textwrap.dedent(_TOP_P_21.format(order=order)).strip("\n")


_TOP_K_21 = """
out = logits / temperature
if top_k:
    kth = torch.topk(out, min(top_k, len(out))).values[-1]
    out = out.masked_fill(out < kth, float("-inf"))
"""
WRONG_21.update({
    "排序没写 stable=True（16 个以上的并列被打乱）": step_21(_TOP_K_21, "torch.sort(out, descending=True).indices"),
    "argsort 没写 stable=True": step_21(_TOP_K_21, "torch.argsort(out, descending=True)"),
    "温度乘上去而不是除": step_21(_TOP_K_21.replace("logits / temperature", "logits * temperature")),
    "top-k 的第 k 大取成了排好后的第 k 个（从 0 数，多留一个）": step_21("""
        out = logits / temperature
        if top_k:
            ranked = torch.sort(out, descending=True).values
            kth = ranked[min(top_k, len(out) - 1)]
            out = out.masked_fill(out < kth, float("-inf"))
    """),
    "top-k 用 <= 第 k 大（连第 k 大也丢了）": step_21(_TOP_K_21.replace("out < kth", "out <= kth")),
    "捷径：调用包里的 filter_logits": """
        from poetry_gpt.sampling import filter_logits
        return filter_logits(logits / temperature, top_k, top_p)
    """,
})


@pytest.mark.parametrize("name", WRONG_21)
def test_lesson_21_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(21, name, WRONG_21[name], tmp_path)


def test_lesson_21_message_shows_which_positions_differ_not_nan(tmp_path):
    """两边都是 -inf 的位置不再算出“最大相差 nan”：消息写出哪个位置该留下、哪个该丢掉。"""
    path = without_visible_checks(wrong_file(21, WRONG_21["top-k 用 <= 第 k 大（连第 k 大也丢了）"], tmp_path))
    message = verdict_of(21, path).message
    assert "nan" not in message and "个位置不同" in message and "实际是 -inf" in message, message


def test_lesson_21_solution_is_filter_logits_after_temperature():
    """参考答案 = 包里 sample_next 采样前做的事：filter_logits(logits / temperature, top_k, top_p)，在全部用例上逐位相同。"""
    solve = load_solution(21).solve
    cases, _ = reference(BY_NUMBER[21], 21007)
    more_than_k = boundary = 0
    for logits, temperature, top_k, top_p in cases:
        ours = solve(logits, temperature, top_k, top_p)
        assert torch.equal(ours, filter_logits(logits / temperature, top_k, top_p))
        if top_k and int(torch.isfinite(filter_logits(logits, top_k)).sum()) > min(top_k, int(torch.isfinite(logits).sum())):
            more_than_k += 1
        if top_p is not None and top_p < 1 and (logits == 0).sum() > 1:
            boundary += 1
    assert more_than_k >= 8 and boundary >= 10  # 用例里真有第 k 大的并列和 p 边界上的并列
