"""第 26 课（毕业作品：训练你自己的诗人）：参考答案与包里的代码一致；错误答案都过不了 ./poet check。"""

import importlib.util

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, verdict_of, without_visible_checks, wrong_file, wrong_verdict

from courseware.catalogue import BY_NUMBER
from courseware.grading import reference
from poetry_gpt.model import ModelConfig, PoetryGPT


def load_solution(number):
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 第 26 课：按参数预算选宽度 ----------

_COUNT26 = """
    def count(C):
        return vocab_size * C + context_length * C + n_layers * (12 * C * C + 13 * C) + 2 * C
"""
BANK = {
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
    "用 < 而不是 <=（正好等于预算被拒）": _COUNT26
    + """
    width = n_heads
    if count(width) >= budget:
        raise ValueError("太小")
    while count(width + n_heads) < budget:
        width += n_heads
    return width, count(width)
    """,
    "宽度一格一格加，不管头数": _COUNT26
    + """
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
    "多走一档（先加宽再判断）": _COUNT26
    + """
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
    "只试 2 的幂": _COUNT26
    + """
    width = n_heads
    if count(width) > budget:
        raise ValueError("太小")
    while count(width * 2) <= budget:
        width *= 2
    return width, count(width)
    """,
    "返回参数个数的剩余（budget - count）": _COUNT26
    + """
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
BANK.update(
    {
        "预算太小时返回 (0, 0)": _COUNT26
        + """
    width = n_heads
    if count(width) > budget:
        return 0, 0
"""
        + _GROW26,
        "预算太小时返回 None": _COUNT26
        + """
    width = n_heads
    if count(width) > budget:
        return None
"""
        + _GROW26,
        "预算太小时照样返回最窄的宽度": _COUNT26
        + """
    width = n_heads
"""
        + _GROW26,
        "用 assert 代替 raise ValueError": _COUNT26
        + """
    width = n_heads
    assert count(width) <= budget, "预算太小"
"""
        + _GROW26,
        "raise 的是 RuntimeError": _COUNT26
        + """
    width = n_heads
    if count(width) > budget:
        raise RuntimeError("预算太小")
"""
        + _GROW26,
        "只在预算不够字向量表 V·C 时才 raise": _COUNT26
        + """
    width = n_heads
    if vocab_size * width > budget:
        raise ValueError("预算太小")
"""
        + _GROW26,
        "捷径：在 meta 设备上建 nn.Linear 数参数": """
    from torch import nn
    def count(C):
        layer = nn.Linear(C, 3 * C, device="meta")
        per_block = 4 * sum(p.numel() for p in layer.parameters()) // 3 * 0 + 12 * C * C + 13 * C
        return vocab_size * C + context_length * C + n_layers * per_block + 2 * C
"""
        + """
    width = n_heads
    if count(width) > budget:
        raise ValueError("预算太小")
"""
        + _GROW26,
    }
)


@pytest.mark.parametrize("name", BANK)
def test_lesson_26_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(26, name, BANK[name], tmp_path)


def test_lesson_26_error_path_says_a_value_error_is_due(tmp_path):
    path = without_visible_checks(wrong_file(26, BANK["预算太小时返回 (0, 0)"], tmp_path))
    message = verdict_of(26, path).message
    assert "应当 raise ValueError" in message, message


def test_lesson_26_annotations_and_names_containing_nn_are_not_refused(tmp_path):
    """ "nn" 按整个名字查：from __future__ import annotations、名叫 channel 的属性都不误伤。"""
    path = tmp_path / "ok_26.py"
    solution = (BY_NUMBER[26].folder / "solution.py").read_text(encoding="utf-8")
    body = solution.replace('"""第 26 课补全练习', 'from __future__ import annotations\n"""第 26 课补全练习', 1)
    body = body.replace(
        "    width = n_heads\n", "    class Plan:\n        channel = n_heads\n    width = Plan.channel\n", 1
    )
    path.write_text(body, encoding="utf-8")
    verdict = verdict_of(26, path)
    assert verdict.passed, verdict.message


def test_lesson_26_shortcut_is_refused_with_the_reason(tmp_path):
    v = wrong_verdict(26, BANK["建模型数参数（第 14 课的答案当捷径）"], tmp_path)
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
                model = PoetryGPT(
                    ModelConfig(vocab_size=V, context_length=L, width=n_heads, n_layers=n_layers, n_heads=n_heads)
                )
            assert model.num_parameters() > budget
            too_small += 1
            continue
        assert width % n_heads == 0
        counts = []
        for C in (width, width + n_heads):
            with torch.device("meta"):
                model = PoetryGPT(
                    ModelConfig(vocab_size=V, context_length=L, width=C, n_layers=n_layers, n_heads=n_heads)
                )
            counts.append(model.num_parameters())
        assert counts[0] == n <= budget < counts[1], (budget, V, L, n_layers, n_heads)
    assert too_small == 6
