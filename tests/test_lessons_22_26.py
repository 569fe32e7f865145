"""第 22、23、26 课：参考答案与包里的代码一致；错误答案都过不了 ./poet check。"""
import importlib.util

import pytest
import torch

from poetry_gpt.constraints import LINE_END_CHOICES, Constraint, hanzi_mask
from poetry_gpt.courseware.catalogue import BY_NUMBER
from poetry_gpt.courseware.grading import reference
from poetry_gpt.data import EOS, default_tokenizer, load_poems, split_lines
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.settings import PLAIN

from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file, wrong_verdict

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
WRONG_22 = {
    "句尾标点放反（line + 1）": _COUNT + """
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
    "句尾早一格（pos == form - 1）": _COUNT + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form - 1:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "写完四句不停（没有只许 <eos> 的一支）": _COUNT + """
    mask = torch.zeros_like(hanzi)
    if pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "句中也许标点": _COUNT + """
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
    "句尾两组标点都许": _COUNT + """
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
    "返回 0/1 的整数张量": _COUNT + """
    mask = torch.zeros(hanzi.shape[0], dtype=torch.long)
    if line == 4:
        mask[eos] = 1
    elif pos == form:
        mask[line_ends[line % 2]] = 1
    else:
        mask[hanzi] = 1
    return mask
    """,
    "在 hanzi 上原地改": _COUNT + """
    mask = hanzi
    if line == 4 or pos == form:
        mask[:] = False
        mask[eos if line == 4 else line_ends[line % 2]] = True
    return mask
    """,
    "编号写死（eos = 3，标点按真实汉字表）": _COUNT + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[3] = True
    elif pos == form:
        mask[[8, 2990] if line % 2 == 0 else [7, 2990]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "句中直接返回 hanzi 本身（没有复制）": _COUNT + """
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
    "句中返回 hanzi 的视图 hanzi[:]": _COUNT + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[line % 2]] = True
    else:
        mask = hanzi[:]
    return mask
    """,
    "只有第 0 句用 line_ends[0]（第三句用错）": _COUNT + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[0 if line == 0 else 1]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "只有第 1 句用 line_ends[1]（第四句用错）": _COUNT + """
    mask = torch.zeros_like(hanzi)
    if line == 4:
        mask[eos] = True
    elif pos == form:
        mask[line_ends[1 if line == 1 else 0]] = True
    else:
        mask |= hanzi
    return mask
    """,
    "句中把 <eos> 也放进来": _COUNT + """
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
    "捷径：真实汉字表上用包里的 hanzi_mask": _COUNT + """
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


@pytest.mark.parametrize("name", WRONG_22)
def test_lesson_22_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(22, name, WRONG_22[name], tmp_path)


def test_lesson_22_messages_name_the_positions_and_the_alias(tmp_path):
    path = without_visible_checks(wrong_file(22, WRONG_22["只有第 0 句用 line_ends[0]（第三句用错）"], tmp_path))
    message = verdict_of(22, path).message
    assert "该允许却没允许" in message and "不该允许却允许了" in message and "最大相差" not in message, message
    path = without_visible_checks(wrong_file(22, WRONG_22["句中直接返回 hanzi 本身（没有复制）"], tmp_path))
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
WRONG_23 = {
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
""" + _TAIL,
    "不含这一格（< 而不是 <=）": _LOOP + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left < len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
""" + _TAIL,
    "只在自由格子正好等于还差的字数时强制（== 而不是 <=）": _LOOP + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left == len(missing):
                token = missing[0]
            else:
                token = wanted[line * form + pos]
""" + _TAIL,
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
""" + _TAIL,
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
""" + _TAIL,
    "自己写出来的必含字不划掉": _LOOP + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing.pop(0)
            else:
                token = wanted[line * form + pos]
            body.append(token)
    return body
""",
    "强制时写最后一个还差的字": _LOOP + """
            if acrostic and pos == 0:
                token = acrostic[line]
            elif missing and free_left <= len(missing):
                token = missing[-1]
            else:
                token = wanted[line * form + pos]
""" + _TAIL,
    "必含字比格子多时，从头就只写必含字（连藏头格也占）": _LOOP + """
            if missing and free_left <= len(missing):
                token = missing[0]
            elif acrostic and pos == 0:
                token = acrostic[line]
            else:
                token = wanted[line * form + pos]
""" + _TAIL,
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
""" + _TAIL,
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
WRONG_23.update({
    "用 set 去重（还差的字的先后丢了）": _LOOP.replace("dict.fromkeys(required)", "set(required)") + _PICK_23 + _TAIL,
    "先看强制，再看藏头（强制字占了藏头格）": _LOOP + """
            if missing and free_left <= len(missing):
                token = missing[0]
            elif acrostic and pos == 0:
                token = acrostic[line]
            else:
                token = wanted[line * form + pos]
""" + _TAIL,
    "剩下的格子只按整句算（忘了减去这一句已写的）": _LOOP.replace("(4 - line) * form - pos", "(4 - line) * form")
    + _PICK_23 + _TAIL,
    "藏头字按格取（acrostic[pos]）": _LOOP + _PICK_23.replace("acrostic[line]", "acrostic[pos]") + _TAIL,
    "wanted 里已经有的字不算还差": _LOOP.replace("if t not in acrostic]", "if t not in acrostic and t not in wanted]")
    + _PICK_23 + _TAIL,
    "捷径：对照包里的规则": "    from poetry_gpt.settings import PLAIN\n" + _LOOP + _PICK_23 + _TAIL,
})


@pytest.mark.parametrize("name", WRONG_23)
def test_lesson_23_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(23, name, WRONG_23[name], tmp_path)


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
        required = "".join(other[-1][-int(torch.randint(1, 4, (1,), generator=gen)):]) + (acrostic[:1] if acrostic else "")
        c = Constraint(TOK, form, required, acrostic, rules=PLAIN)
        body = []
        for k, want in enumerate(wanted):
            mask = c.allowed()
            token = want if mask[want] and mask.sum() > len(c.missing) else int(
                next(t for t in [*c.missing, *c.acrostic] if mask[t]))
            forced_somewhere += token != want
            body.append(token)
            c.advance(token)
            if (k + 1) % form == 0:
                c.advance(TOK.stoi["，" if (k + 1) // form % 2 else "。"])
        ours = solve(form, TOK.encode(acrostic), TOK.encode(required), wanted)
        assert ours == body, (p["text"], acrostic, required)
    assert forced_somewhere > 20


# ---------- 第 26 课：按参数预算选宽度 ----------

_COUNT26 = """
    def count(C):
        return vocab_size * C + context_length * C + n_layers * (12 * C * C + 13 * C) + 2 * C
"""
WRONG_26 = {
    "建模型数参数（第 14 课的答案当捷径）": """
    from poetry_gpt.model import ModelConfig, PoetryGPT
    def count(C):
        with torch.device("meta"):
            m = PoetryGPT(ModelConfig(vocab_size=vocab_size, context_length=context_length, width=C,
                                      n_layers=n_layers, n_heads=n_heads))
        return m.num_parameters()
    width = n_heads
    if count(width) > budget:
        raise ValueError("太小")
    while count(width + n_heads) <= budget:
        width += n_heads
    return width, count(width)
    """,
    "用 < 而不是 <=（正好等于预算被拒）": _COUNT26 + """
    width = n_heads
    if count(width) >= budget:
        raise ValueError("太小")
    while count(width + n_heads) < budget:
        width += n_heads
    return width, count(width)
    """,
    "宽度一格一格加，不管头数": _COUNT26 + """
    width = 1
    if count(n_heads) > budget:
        raise ValueError("太小")
    while count(width + 1) <= budget:
        width += 1
    return width, count(width)
    """,
    "输出层又算一遍（2·V·C）": """
    def count(C):
        return 2 * vocab_size * C + context_length * C + n_layers * (12 * C * C + 13 * C) + 2 * C
    width = n_heads
    if count(width) > budget:
        raise ValueError("太小")
    while count(width + n_heads) <= budget:
        width += n_heads
    return width, count(width)
    """,
    "忘了偏置与 LayerNorm（每层只算 12C²）": """
    def count(C):
        return vocab_size * C + context_length * C + n_layers * 12 * C * C
    width = n_heads
    if count(width) > budget:
        raise ValueError("太小")
    while count(width + n_heads) <= budget:
        width += n_heads
    return width, count(width)
    """,
    "多走一档（先加宽再判断）": _COUNT26 + """
    width = n_heads
    if count(width) > budget:
        raise ValueError("太小")
    while count(width) <= budget:
        width += n_heads
    return width, count(width)
    """,
    "解二次方程，返回浮点数": """
    a = 12 * n_layers
    b = vocab_size + context_length + 13 * n_layers + 2
    C = (-b + (b * b + 4 * a * budget) ** 0.5) / (2 * a) if a else budget / b
    width = C // n_heads * n_heads
    if width < n_heads:
        raise ValueError("太小")
    return width, vocab_size * width + context_length * width + n_layers * (12 * width ** 2 + 13 * width) + 2 * width
    """,
    "只试 2 的幂": _COUNT26 + """
    width = n_heads
    if count(width) > budget:
        raise ValueError("太小")
    while count(width * 2) <= budget:
        width *= 2
    return width, count(width)
    """,
    "返回参数个数的剩余（budget - count）": _COUNT26 + """
    width = n_heads
    if count(width) > budget:
        raise ValueError("太小")
    while count(width + n_heads) <= budget:
        width += n_heads
    return width, budget - count(width)
    """,
}
_GROW26 = """
    while count(width + n_heads) <= budget:
        width += n_heads
    return width, count(width)
"""
WRONG_26.update({
    "预算太小时返回 (0, 0)": _COUNT26 + """
    width = n_heads
    if count(width) > budget:
        return 0, 0
""" + _GROW26,
    "预算太小时返回 None": _COUNT26 + """
    width = n_heads
    if count(width) > budget:
        return None
""" + _GROW26,
    "预算太小时照样返回最窄的宽度": _COUNT26 + """
    width = n_heads
""" + _GROW26,
    "用 assert 代替 raise ValueError": _COUNT26 + """
    width = n_heads
    assert count(width) <= budget, "预算太小"
""" + _GROW26,
    "raise 的是 RuntimeError": _COUNT26 + """
    width = n_heads
    if count(width) > budget:
        raise RuntimeError("预算太小")
""" + _GROW26,
    "只在预算不够字向量表 V·C 时才 raise": _COUNT26 + """
    width = n_heads
    if vocab_size * width > budget:
        raise ValueError("预算太小")
""" + _GROW26,
    "捷径：在 meta 设备上建 nn.Linear 数参数": """
    from torch import nn
    def count(C):
        layer = nn.Linear(C, 3 * C, device="meta")
        per_block = 4 * sum(p.numel() for p in layer.parameters()) // 3 * 0 + 12 * C * C + 13 * C
        return vocab_size * C + context_length * C + n_layers * per_block + 2 * C
""" + """
    width = n_heads
    if count(width) > budget:
        raise ValueError("预算太小")
""" + _GROW26,
})


@pytest.mark.parametrize("name", WRONG_26)
def test_lesson_26_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(26, name, WRONG_26[name], tmp_path)


def test_lesson_26_error_path_says_a_value_error_is_due(tmp_path):
    path = without_visible_checks(wrong_file(26, WRONG_26["预算太小时返回 (0, 0)"], tmp_path))
    message = verdict_of(26, path).message
    assert "应当 raise ValueError" in message, message


def test_lesson_26_annotations_and_names_containing_nn_are_not_refused(tmp_path):
    """"nn" 按整个名字查：from __future__ import annotations、名叫 channel 的属性都不误伤。"""
    path = tmp_path / "ok_26.py"
    solution = (BY_NUMBER[26].folder / "solution.py").read_text(encoding="utf-8")
    body = solution.replace('"""第 26 课补全练习', 'from __future__ import annotations\n"""第 26 课补全练习', 1)
    body = body.replace("    width = n_heads\n", "    class Plan:\n        channel = n_heads\n    width = Plan.channel\n", 1)
    path.write_text(body, encoding="utf-8")
    verdict = verdict_of(26, path)
    assert verdict.passed, verdict.message


def test_lesson_26_shortcut_is_refused_with_the_reason(tmp_path):
    v = wrong_verdict(26, WRONG_26["建模型数参数（第 14 课的答案当捷径）"], tmp_path)
    assert v.kind == "wrong" and "第 14 课" in v.message, v.message


def test_lesson_26_solution_matches_the_real_model():
    """check.py 的每个用例：选出的宽度能被头数整除，真模型（meta 设备）的参数个数等于参考答案给的数、
    不超预算；再宽一档的真模型超出预算。预算不够的用例：最窄的真模型已经超出预算，参考答案 raise ValueError。"""
    solve = load_solution(26).solve
    cases, _ = reference(BY_NUMBER[26], 26007)
    too_small = 0
    for budget, V, L, n_layers, n_heads in cases:
        try:
            width, n = solve(budget, V, L, n_layers, n_heads)
        except ValueError:
            with torch.device("meta"):
                model = PoetryGPT(ModelConfig(vocab_size=V, context_length=L, width=n_heads, n_layers=n_layers,
                                              n_heads=n_heads))
            assert model.num_parameters() > budget
            too_small += 1
            continue
        assert width % n_heads == 0
        counts = []
        for C in (width, width + n_heads):
            with torch.device("meta"):
                model = PoetryGPT(ModelConfig(vocab_size=V, context_length=L, width=C, n_layers=n_layers, n_heads=n_heads))
            counts.append(model.num_parameters())
        assert counts[0] == n <= budget < counts[1], (budget, V, L, n_layers, n_heads)
    assert too_small == 6
