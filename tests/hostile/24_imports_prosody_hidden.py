# 期望：崩溃
"""在 solve 里用拼出来的名字导入 poetry_gpt.prosody，调用参考实现 quatrain_rhyme（源码规则查不到）：
沙箱里没有课程包，导入失败。"""
import importlib


def solve(poem, groups):
    package = importlib.import_module(".".join(["poetry_gpt", "pros" + "ody"]))
    report = getattr(package, "quatrain" + "_rhyme")(poem)
    return list(report.groups), report.first_line
