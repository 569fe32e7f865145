"""第 21 课（温度与截断采样）：练习（温度之后截断）的参考答案与 filter_logits 一致；错误答案都过不了 ./poet check。"""

import importlib.util
import textwrap

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file

from courseware.catalogue import BY_NUMBER
from courseware.grading import reference
from poetry_gpt.sampling import filter_logits


def load_solution(number):
    """lessons/NN/solution.py 当模块导入（只为取 solve）。"""
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 第 21 课：温度与 top-k / top-p 截断 ----------

BANK = {
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
    # top_p = 1.0 说的是“不截”：if top_p: 把它当普通的 p，真实的一行上前面之和在 float32 里会累加到 1，尾巴被截掉
    "if top_p: 把 top_p = 1 也当成要截": """
        out = logits / temperature
        if top_k:
            kth = torch.topk(out, min(top_k, len(out))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
    """,
    "top_k = 0 当成只留 0 个（if top_k is not None）": """
        out = logits / temperature
        if top_k is not None:
            kth = torch.topk(out, max(1, min(top_k, len(out)))).values[-1]
            out = out.masked_fill(out < kth, float("-inf"))
        if top_p is not None and top_p < 1:
            order = torch.sort(out, descending=True, stable=True).indices
            probs = torch.softmax(out[order], dim=-1)
            before = torch.cumsum(probs, dim=-1) - probs
            out = out.clone()
            out[order[before >= top_p]] = float("-inf")
        return out
    """,
    "top_k 不和 V 取小（k 比 V 大时出错）": """
        out = logits / temperature
        if top_k:
            kth = torch.topk(out, top_k).values[-1]
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
BANK.update(
    {
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
    }
)


@pytest.mark.parametrize("name", BANK)
def test_lesson_21_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(21, name, BANK[name], tmp_path)


def test_lesson_21_message_shows_which_positions_differ_not_nan(tmp_path):
    """两边都是 -inf 的位置不再算出“最大相差 nan”：消息写出哪个位置该留下、哪个该丢掉。"""
    path = without_visible_checks(wrong_file(21, BANK["top-k 用 <= 第 k 大（连第 k 大也丢了）"], tmp_path))
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
        if top_k and int(torch.isfinite(filter_logits(logits, top_k)).sum()) > min(
            top_k, int(torch.isfinite(logits).sum())
        ):
            more_than_k += 1
        if top_p is not None and top_p < 1 and (logits == 0).sum() > 1:
            boundary += 1
    assert more_than_k >= 8 and boundary >= 10  # 用例里真有第 k 大的并列和 p 边界上的并列
