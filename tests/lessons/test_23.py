"""第 23 课（藏头诗）：参考答案与包里的代码一致；错误答案都过不了 ./poet check。"""

import importlib.util

import pytest
import torch
from lesson_bank import assert_bank_entry_fails

from courseware.catalogue import BY_NUMBER
from poetry_gpt.constraints import Constraint
from poetry_gpt.data import default_tokenizer, load_poems, split_lines
from poetry_gpt.settings import PLAIN

TOK = default_tokenizer()


def load_solution(number):
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 第 23 课：强制字的日程 ----------

_LOOP = """
    missing = [t for t in dict.fromkeys(required) if t not in acrostic]
    body = []
    for line in range(4):
        for pos in range(form):
            free_left = (4 - line) * form - pos
            if acrostic:
                free_left -= 4 - line - (1 if pos > 0 else 0)
"""
_TAIL = """
            body.append(token)
            if token in missing:
                missing.remove(token)
    return body
"""
BANK = {
    "藏头格也算自由格子": """
    missing = [t for t in dict.fromkeys(required) if t not in acrostic]
    body = []
    for line in range(4):
        for pos in range(form):
            free_left = (4 - line) * form - pos
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "不含这一格（< 而不是 <=）": _LOOP
    + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left < len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "只在自由格子正好等于还差的字数时强制（== 而不是 <=）": _LOOP
    + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left == len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "藏头字也算进还差的字": """
    missing = list(dict.fromkeys(required))
    body = []
    for line in range(4):
        for pos in range(form):
            free_left = (4 - line) * form - pos
            if acrostic:
                free_left -= 4 - line - (1 if pos > 0 else 0)
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "没去重": """
    missing = [t for t in required if t not in acrostic]
    body = []
    for line in range(4):
        for pos in range(form):
            free_left = (4 - line) * form - pos
            if acrostic:
                free_left -= 4 - line - (1 if pos > 0 else 0)
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "自己写出来的必含字不划掉": _LOOP
    + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing.pop(0)
            else:
                token = wanted[line * form + pos]
            body.append(token)
    return body
""",
    "强制时写最后一个还差的字": _LOOP
    + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing[-1]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "必含字比格子多时，从头就只写必含字（连藏头格也占）": _LOOP
    + """
            if missing and free_left <= len(missing):
                token = missing[0]
            elif acrostic and pos == 0:
                token = acrostic[line]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "藏头格减多了一格（pos > 0 的修正写反）": """
    missing = [t for t in dict.fromkeys(required) if t not in acrostic]
    body = []
    for line in range(4):
        for pos in range(form):
            free_left = (4 - line) * form - pos
            if acrostic:
                free_left -= 4 - line - (1 if pos == 0 else 0)
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
"""
    + _TAIL,
    "直接从 required 里划掉（改了输入）": """
    missing = required
    for t in acrostic:
        while t in missing:
            missing.remove(t)
    body = []
    for line in range(4):
        for pos in range(form):
            free_left = (4 - line) * form - pos
            if acrostic:
                free_left -= 4 - line - (1 if pos > 0 else 0)
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(set(missing)):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
            body.append(token)
            while token in missing:
                missing.remove(token)
    return body
""",
}
_PICK_23 = """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
"""
BANK.update(
    {
        "用 set 去重（还差的字的先后丢了）": _LOOP.replace("dict.fromkeys(required)", "set(required)")
        + _PICK_23
        + _TAIL,
        "先看强制，再看藏头（强制字占了藏头格）": _LOOP
        + """
            if missing and free_left <= len(missing):
                token = missing[0]
            elif acrostic and pos == 0:
                token = acrostic[line]
            else:
                token = wanted[line * form + pos]
"""
        + _TAIL,
        "剩下的格子只按整句算（忘了减去这一句已写的）": _LOOP.replace("(4 - line) * form - pos", "(4 - line) * form")
        + _PICK_23
        + _TAIL,
        "藏头字按格取（acrostic[pos]）": _LOOP + _PICK_23.replace("acrostic[line]", "acrostic[pos]") + _TAIL,
        "wanted 里已经有的字不算还差": _LOOP.replace(
            "if t not in acrostic]", "if t not in acrostic and t not in wanted]"
        )
        + _PICK_23
        + _TAIL,
        "捷径：对照包里的规则": "    from poetry_gpt.settings import PLAIN\n" + _LOOP + _PICK_23 + _TAIL,
    }
)


@pytest.mark.parametrize("name", BANK)
def test_lesson_23_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(23, name, BANK[name], tmp_path)


def test_lesson_23_solution_follows_constraint_slot_by_slot():
    """同样的 wanted：每一格 Constraint(rules=PLAIN) 允许 wanted 的字就写它，否则它只许还差的字（或藏头字），
    取排在最前的。写出的字与参考答案逐格相同。"""
    solve = load_solution(23).solve
    poems = load_poems("val", 60)
    gen = torch.Generator().manual_seed(23)
    forced_somewhere = 0
    for i, p in enumerate(poems[:-1]):
        lines = split_lines(p["text"])
        other = split_lines(poems[i + 1]["text"])
        if any(ch not in TOK for ch in p["text"] + poems[i + 1]["text"]):
            continue
        form = len(lines[0])
        wanted = TOK.encode("".join(lines))
        acrostic = "".join(line[0] for line in other) if i % 2 else ""
        required = "".join(other[-1][-int(torch.randint(1, 4, (1,), generator=gen)) :]) + (
            acrostic[:1] if acrostic else ""
        )
        c = Constraint(TOK, form, required, acrostic, rules=PLAIN)
        body = []
        for k, want in enumerate(wanted):
            mask = c.allowed()
            token = (
                want
                if mask[want] and mask.sum() > len(c.missing)
                else int(next(t for t in [*c.missing, *c.acrostic] if mask[t]))
            )
            forced_somewhere += token != want
            body.append(token)
            c.advance(token)
            if (k + 1) % form == 0:
                c.advance(TOK.stoi["，" if (k + 1) // form % 2 else "。"])
        ours = solve(form, TOK.encode(acrostic), TOK.encode(required), wanted)
        assert ours == body, (p["text"], acrostic, required)
    assert forced_somewhere > 20
