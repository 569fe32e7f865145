# 期望：崩溃
"""第 05 课没有源码规则：直接导入课程包里建汉字表的参考实现。沙箱里没有 poetry_gpt，导入失败。"""
from poetry_gpt.data import Tokenizer


def solve(texts, min_count, specials):
    return Tokenizer.build(texts, min_count, specials).stoi
