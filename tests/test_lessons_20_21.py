"""第 20、21 课：逐字生成与截断采样的规则；练习的参考答案与包里的函数一致；错误答案都过不了 ./poet check。"""
import importlib.util
import textwrap
from types import SimpleNamespace

import pytest
import torch
from torch import nn

from poetry_gpt.courseware.catalogue import BY_NUMBER
from poetry_gpt.courseware.grading import reference
from poetry_gpt.data import BOS, EOS, FIVE, SEP, SPECIAL, Tokenizer, default_tokenizer
from poetry_gpt.generate import filter_logits, write_one
from poetry_gpt.model import ModelConfig, PoetryGPT

from lesson_bank import assert_bank_entry_fails, differential_catches, verdict_of, without_visible_checks, wrong_file, wrong_verdict

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
    poem = write_one(model, TOK, "月", form=5, temperature=0, constrained=False)
    ids = [BOS, FIVE, TOK.stoi["月"], SEP]
    with torch.no_grad():
        while len(ids) < 16:  # 朴素的循环：每一步重算整段
            token = int(torch.argmax(model(torch.tensor([ids]))[0][0, -1]))
            if token == EOS:
                break
            ids.append(token)
    assert len(ids) == 16, "这个未训练的小模型应当一直写到前文长度"
    assert poem.text == TOK.decode(ids[4:])


# ---------- 第 20 课：贪心生成循环 ----------

WRONG_20 = {
    "把 <eos> 也放进结果": """
        ids = list(prompt)
        while len(ids) < position_table.shape[0]:
            token = int(torch.argmax(table[ids[-1]] + position_table[len(ids) - 1]))
            ids.append(token)
            if token == eos:
                break
        return ids[len(prompt):]
    """,
    "多写一个：满 L 个之后还接着写一个": """
        ids = list(prompt)
        L = position_table.shape[0]
        while len(ids) <= L:
            token = int(torch.argmax(table[ids[-1]] + position_table[min(len(ids) - 1, L - 1)]))
            if token == eos:
                break
            ids.append(token)
        return ids[len(prompt):]
    """,
    "只数写出的编号，不算 prompt": """
        ids, out = list(prompt), []
        L = position_table.shape[0]
        while len(out) < L - 1:
            token = int(torch.argmax(table[ids[-1]] + position_table[min(len(ids) - 1, L - 1)]))
            if token == eos:
                break
            out.append(token)
            ids.append(token)
        return out
    """,
    "位置从写出的第一个字数起（忘了 past）": """
        out, last = [], prompt[-1]
        while len(prompt) + len(out) < position_table.shape[0]:
            token = int(torch.argmax(table[last] + position_table[len(out)]))
            if token == eos:
                break
            out.append(token)
            last = token
        return out
    """,
    "位置差一格（用 len(ids)）": """
        ids = list(prompt)
        L = position_table.shape[0]
        while len(ids) < L:
            token = int(torch.argmax(table[ids[-1]] + position_table[len(ids)]))
            if token == eos:
                break
            ids.append(token)
        return ids[len(prompt):]
    """,
    "并列时取编号最大的": """
        ids = list(prompt)
        while len(ids) < position_table.shape[0]:
            logits = table[ids[-1]] + position_table[len(ids) - 1]
            token = len(logits) - 1 - int(torch.argmax(logits.flip(0)))
            if token == eos:
                break
            ids.append(token)
        return ids[len(prompt):]
    """,
    "返回整段（含 prompt）": """
        ids = list(prompt)
        while len(ids) < position_table.shape[0]:
            token = int(torch.argmax(table[ids[-1]] + position_table[len(ids) - 1]))
            if token == eos:
                break
            ids.append(token)
        return ids
    """,
    "直接往 prompt 上接（改了输入）": """
        start = len(prompt)
        while len(prompt) < position_table.shape[0]:
            token = int(torch.argmax(table[prompt[-1]] + position_table[len(prompt) - 1]))
            if token == eos:
                break
            prompt.append(token)
        return prompt[start:]
    """,
    "按概率抽样，不是取最高": """
        ids = list(prompt)
        while len(ids) < position_table.shape[0]:
            probs = torch.softmax(table[ids[-1]] + position_table[len(ids) - 1], -1)
            token = int(torch.multinomial(probs, 1))
            if token == eos:
                break
            ids.append(token)
        return ids[len(prompt):]
    """,
}
ONLY_VISIBLE_20 = {"直接往 prompt 上接（改了输入）"}  # 用例在父进程里，改了子进程里的那份也看不出来


@pytest.mark.parametrize("name", WRONG_20)
def test_lesson_20_wrong_solutions_fail(name, tmp_path):
    v = wrong_verdict(20, WRONG_20[name], tmp_path)
    assert v.kind in ("wrong", "crashed"), (name, v.kind, v.message)


@pytest.mark.parametrize("name", sorted(set(WRONG_20) - ONLY_VISIBLE_20))
def test_lesson_20_random_cases_alone_catch_wrong_solutions(name, tmp_path):
    assert differential_catches(20, WRONG_20[name], tmp_path), name


def test_lesson_20_cases_cover_the_edges():
    """用例里有：prompt 已满、第一步就是 eos、写到 <eos> 停、写满前文长度停、分数并列最高、真实语料数出的表。"""
    cases, expected = reference(BY_NUMBER[20], 20007)
    kinds = set()
    for (table, position_table, prompt, eos), out in zip(cases, expected):
        L = position_table.shape[0]
        ids = prompt + out
        kinds.add("写满 L 个" if len(ids) == L else "写到 eos")
        kinds.add("什么也没写" if not out else "写了")
        if len(prompt) == L:
            kinds.add("prompt 已满")
        if table.shape[0] == 83:
            kinds.add("真实语料")
        for n in range(len(prompt), len(ids) + (len(ids) < L)):
            logits = table[ids[n - 1]] + position_table[n - 1]
            if int((logits == logits.max()).sum()) > 1:
                kinds.add("并列最高")
    assert kinds == {"写满 L 个", "写到 eos", "什么也没写", "写了", "prompt 已满", "真实语料", "并列最高"}, kinds


class TableModel(nn.Module):
    """练习里的替身做成 write_one 能用的“模型”：logits = table[编号] + position_table[位置]，
    位置 = past + 0…T-1，past 从 KV 缓存的长度读（与 PoetryGPT.hidden_states 一样）。"""

    def __init__(self, table, position_table):
        super().__init__()
        self.table, self.position_table = nn.Parameter(table), nn.Parameter(position_table)
        self.config = SimpleNamespace(n_layers=1, context_length=position_table.shape[0])

    def forward(self, ids, kv_cache=None):
        past = len(kv_cache) if kv_cache is not None else 0
        T = ids.shape[1]
        if kv_cache is not None:
            kv_cache.extend(0, torch.zeros(1, 1, T, 1), torch.zeros(1, 1, T, 1))  # 只为记下长度
        return self.table[ids] + self.position_table[torch.arange(past, past + T)], None


def test_lesson_20_solution_writes_what_write_one_writes():
    """同一个替身模型：参考答案的循环与 write_one（温度 0、不受约束、KV 缓存）写出同样的字，
    无论停在 <eos> 还是停在前文长度。"""
    solve = load_solution(20).solve
    tok = Tokenizer(list(SPECIAL) + list("月明山水风花，。"))
    V, gen = len(tok), torch.Generator().manual_seed(5)
    stops = set()
    for trial in range(30):
        L = int(torch.randint(5, 30, (1,), generator=gen))
        table = torch.randn(V, V, generator=gen)
        position_table = torch.randn(L, V, generator=gen)
        position_table[:, EOS] += torch.linspace(-3, 3, L)  # 越往后越可能写 <eos>
        model = TableModel(table, position_table)
        prompt = [BOS, FIVE, tok.stoi["月"], SEP]
        poem = write_one(model, tok, "月", form=5, temperature=0, constrained=False)
        ours = solve(table, position_table, prompt, EOS)
        assert poem.text == tok.decode(ours), trial
        stops.add(len(prompt) + len(ours) == L)
    assert stops == {True, False}


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
        from poetry_gpt.generate import filter_logits
        return filter_logits(logits / temperature, top_k, top_p)
    """,
})


@pytest.mark.parametrize("name", WRONG_21)
def test_lesson_21_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(21, name, WRONG_21[name], tmp_path)


def test_lesson_21_message_shows_which_positions_differ_not_nan(tmp_path):
    """两边都是 -inf 的位置不再算出“最大相差 nan”：消息写出哪个位置该留下、哪个该丢掉。"""
    message = wrong_verdict(21, WRONG_21["top-k 用 <= 第 k 大（连第 k 大也丢了）"], tmp_path).message
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
