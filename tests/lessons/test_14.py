"""第 14 课（组装 PoetryGPT）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。
参考答案与真实模型的参数个数一致；沙箱里拼出名字导入课程包，得到中文的说明。"""

import importlib.util

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, wrong_file

from courseware.catalogue import BY_NUMBER
from courseware.grading import check_file
from poetry_gpt.common import ROOT

BANK = {
    "输出层又算了一遍": """
        C = width
        block = 12 * C * C + 13 * C
        return 2 * vocab_size * C + context_length * C + n_layers * block + 2 * C""",
    "忘了偏置": """
        C = width
        block = 12 * C * C + 4 * C
        return vocab_size * C + context_length * C + n_layers * block + 2 * C""",
    "忘了最后的 LayerNorm": """
        C = width
        return vocab_size * C + context_length * C + n_layers * (12 * C * C + 13 * C)""",
    "忘了位置表": """
        C = width
        return vocab_size * C + n_layers * (12 * C * C + 13 * C) + 2 * C""",
    "返回浮点数": """
        C = width
        return vocab_size * C + context_length * C + n_layers * (12 * C ** 2 + 13 * C) + 2 * C / 1""",
    "每层只算一个 LayerNorm": """
        C = width
        return vocab_size * C + context_length * C + n_layers * (12 * C * C + 11 * C) + 2 * C""",
    "捷径：建课程包的 PoetryGPT 再数": """
        from poetry_gpt.model import ModelConfig, PoetryGPT
        config = ModelConfig(vocab_size=vocab_size, context_length=context_length, width=width, n_layers=n_layers)
        with torch.device("meta"):
            return PoetryGPT(config).num_parameters()""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(14, name, BANK[name], tmp_path)


def _load(name):
    spec = importlib.util.spec_from_file_location(f"lesson14_{name}", ROOT / "lessons" / "14" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_lesson14_solution_matches_real_model_on_check_cases():
    check, solution = _load("check"), _load("solution")
    cases = check.cases(torch.Generator().manual_seed(14 * 1000 + 7))
    assert len(cases) >= 20
    for args in cases:
        assert solution.solve(*args) == check.real_count(*args), args


@pytest.mark.sandbox  # 没有沙箱时包导入得了
def test_importing_the_course_package_in_the_sandbox_is_explained(tmp_path):
    """沙箱里没有 poetry_gpt：在没有捷径规则的课（第 11 课）里拼出名字去导入它，得到“崩溃”，消息用中文说明为什么；
    第 14 课不许用课程包，这样不写出名字的导入在运行之前就被源码规则拦下（答案错误）。"""
    body = '__import__("poetry" + "_gpt.model")\nreturn 0'
    verdict = check_file(BY_NUMBER[11], wrong_file(11, body, tmp_path))
    assert verdict.kind == "crashed" and "导入不了课程包 poetry_gpt" in verdict.message, verdict.message
    verdict = check_file(BY_NUMBER[14], wrong_file(14, body, tmp_path))
    assert verdict.kind == "wrong" and "不是直接写出的字符串" in verdict.message, verdict.message
