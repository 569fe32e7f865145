"""第 22 课（守住格式）：参考答案与包里的代码一致；错误答案都过不了 ./poet check。"""

import importlib.util

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file

from courseware.catalogue import BY_NUMBER
from poetry_gpt.constraints import LINE_END_CHOICES, Constraint, hanzi_mask
from poetry_gpt.data import EOS, default_tokenizer, load_poems, split_lines
from poetry_gpt.settings import PLAIN

TOK = default_tokenizer()


def load_solution(number):
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 第 22 课：允许字的掩码 ----------

_COUNT = """
    ends = set(line_ends[0]) | set(line_ends[1])
    line = sum(1 for t in written if t in ends)
    pos = 0
    for t in written:
        pos = 0 if t in ends else pos + 1
"""
BANK = {
    "句尾标点放反（line + 1）": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[(line + 1) % 2]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "只把 。 当句尾（？ 结束的一句没数上）": """
    line = sum(1 for t in written if t in line_ends[0][:1] or t in line_ends[1][:1])
    pos = 0
    for t in written:
        pos = 0 if t in (line_ends[0][0], line_ends[1][0]) else pos + 1
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "句尾早一格（pos == form - 1）": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form - 1:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "写完四句不停（没有只许 <eos> 的一支）": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "句中也许标点": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi
        mask[line_ends[line % 2]] = True
    return mask
    """,
    "句尾两组标点都许": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[0]] = True
        mask[line_ends[1]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "返回 0/1 的整数张量": _COUNT
    + """
    mask = torch.zeros(hanzi.shape[0], dtype=torch.long)
    if line == 4:
        mask[eos] = 1
    elif pos == form:
        mask[line_ends[line % 2]] = 1
    else:
        mask[hanzi] = 1
    return mask
    """,
    "在 hanzi 上原地改": _COUNT
    + """
    mask = hanzi
    if line == 4 or pos == form:
        mask[:] = False
        mask[eos if line == 4 else line_ends[line % 2]] = True
    return mask
    """,
    "编号写死（eos = 3，标点按真实汉字表）": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[3] = True
    elif pos == form:
        mask[[8, 2990] if line % 2 == 0 else [7, 2990]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "句中直接返回 hanzi 本身（没有复制）": _COUNT
    + """
    if line == 4:
        mask = torch.zeros_like(hanzi)
        mask[eos] = True
        return mask
    if pos == form:
        mask = torch.zeros_like(hanzi)
        mask[line_ends[line % 2]] = True
        return mask
    return hanzi
    """,
    "句中返回 hanzi 的视图 hanzi[:]": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask = hanzi[:]
    return mask
    """,
    "只有第 0 句用 line_ends[0]（第三句用错）": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[0 if line == 0 else 1]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "只有第 1 句用 line_ends[1]（第四句用错）": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[1 if line == 1 else 0]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "句中把 <eos> 也放进来": _COUNT
    + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi
        mask[eos] = True
    return mask
    """,
    "捷径：真实汉字表上用包里的 hanzi_mask": _COUNT
    + """
    from poetry_gpt.data import default_tokenizer
    from poetry_gpt.constraints import hanzi_mask
    tok = default_tokenizer()
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi_mask(tok) if len(hanzi) == len(tok) else hanzi
    return mask
    """,
}


@pytest.mark.parametrize("name", BANK)
def test_lesson_22_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(22, name, BANK[name], tmp_path)


def test_lesson_22_messages_name_the_positions_and_the_alias(tmp_path):
    path = without_visible_checks(wrong_file(22, BANK["只有第 0 句用 line_ends[0]（第三句用错）"], tmp_path))
    message = verdict_of(22, path).message
    assert "该允许却没允许" in message and "不该允许却允许了" in message and "最大相差" not in message, message
    path = without_visible_checks(wrong_file(22, BANK["句尾标点放反（line + 1）"], tmp_path))
    message = verdict_of(22, path).message  # 真实汉字表上，编号带着字
    assert "该允许却没允许 1 个编号：7（。）；不该允许却允许了 1 个编号：8（，）" in message, message
    path = without_visible_checks(wrong_file(22, BANK["句中直接返回 hanzi 本身（没有复制）"], tmp_path))
    message = verdict_of(22, path).message
    assert "共用内存" in message, message


def test_lesson_22_solution_is_constraint_allowed_on_real_poems():
    """val 里的真诗（含 ？ 的诗）逐格：参考答案的掩码与 Constraint(rules=PLAIN).allowed() 相同。
    挑的诗里没有两句前面的字完全相同，重句规则不起作用。"""
    solve = load_solution(22).solve
    hanzi = hanzi_mask(TOK)
    ends = [[TOK.stoi[c] for c in e if c in TOK] for e in LINE_END_CHOICES]
    assert "！" not in TOK and ends == [[TOK.stoi["，"], TOK.stoi["？"]], [TOK.stoi["。"], TOK.stoi["？"]]]
    poems = [p["text"] for p in load_poems("val", 40)] + [p["text"] for p in load_poems("val") if "？" in p["text"]]
    checked = 0
    for text in poems:
        lines = split_lines(text)
        if len({line[:-1] for line in lines}) < 4 or any(ch not in TOK for ch in text):
            continue
        form, ids = len(lines[0]), TOK.encode(text)
        c = Constraint(TOK, form, rules=PLAIN)
        for n in range(len(ids) + 1):
            assert torch.equal(solve(ids[:n], form, hanzi, ends, EOS), c.allowed()), (text, n)
            if n < len(ids):
                c.advance(ids[n])
        checked += 1
    assert checked >= 30
