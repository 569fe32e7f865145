"""PoetryGPT.parameter_counts（第 14 课的参数表）与第 14 课练习的参考答案：都要与真实模型的参数个数一致。"""
import importlib.util

import pytest
import torch

from poetry_gpt.common import ROOT
from poetry_gpt.model import ModelConfig, PoetryGPT


def _load(name):
    spec = importlib.util.spec_from_file_location(f"lesson14_{name}", ROOT / "lessons" / "14" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_default_model_counts_by_part():
    model = PoetryGPT(ModelConfig(vocab_size=6672))
    assert model.parameter_counts() == {"characters": 854_016, "positions": 8_192, "attention": 264_192,
                                        "mlp": 526_848, "norms": 2_304}
    assert model.num_parameters() == 1_655_552


@pytest.mark.parametrize("V, L, C, layers, heads", [(50, 8, 16, 1, 2), (300, 32, 48, 3, 4), (7, 5, 8, 0, 1)])
def test_counts_by_part_follow_formulas(V, L, C, layers, heads):
    model = PoetryGPT(ModelConfig(vocab_size=V, context_length=L, width=C, n_layers=layers, n_heads=heads))
    counts = model.parameter_counts()
    assert counts == {"characters": V * C, "positions": L * C, "attention": layers * (4 * C * C + 4 * C),
                      "mlp": layers * (8 * C * C + 5 * C), "norms": (2 * layers + 1) * 2 * C}
    assert sum(counts.values()) == model.num_parameters()


def test_tied_head_is_counted_once():
    model = PoetryGPT(ModelConfig(vocab_size=100, context_length=8, width=16, n_layers=1, n_heads=2))
    assert model.head.weight is model.characters.weight
    listed = sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
    assert listed - model.num_parameters() == 100 * 16  # 不去重时 head.weight 会多算一遍


def test_lesson14_solution_matches_real_model_on_check_cases():
    check, solution = _load("check"), _load("solution")
    cases = check.cases(torch.Generator().manual_seed(14 * 1000 + 7))
    assert len(cases) >= 20
    for args in cases:
        assert solution.solve(*args) == check.real_count(*args), args


def test_heatmap_without_colour_never_cuts_a_number(capsys, monkeypatch):
    """管道里（没有颜色）放得下时每格两位小数；终端太窄时改印 0–9 的档位，不会出现被截断的“-0.…”。"""
    from poetry_gpt import labs
    matrix = [[(i - j) / 12 for j in range(12)] for i in range(12)]
    monkeypatch.setattr(labs.console, "width", 80)
    labs.heatmap(matrix, [str(i) for i in range(12)], [str(j) for j in range(12)])
    narrow = capsys.readouterr().out
    assert "…" not in narrow and "数字 0–9 越大" in narrow and " 9 " in narrow
    monkeypatch.setattr(labs.console, "width", 200)
    labs.heatmap(matrix, [str(i) for i in range(12)], [str(j) for j in range(12)])
    wide = capsys.readouterr().out
    assert "-0.92" in wide and "…" not in wide
