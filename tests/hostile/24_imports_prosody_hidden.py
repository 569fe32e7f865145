# 期望：崩溃
"""在 solve 里用拼出来的名字导入 poetry_gpt.prosody，调用参考实现 quatrain_rhyme：沙箱里没有课程包。"""
import importlib


def solve(poem, groups):
    prosody = importlib.import_module(".".join(["poetry_gpt", "prosody"]))
    report = prosody.quatrain_rhyme(poem)
    return list(report.groups), report.first_line
