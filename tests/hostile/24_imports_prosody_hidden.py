# 期望：崩溃
"""在 solve 里用拼出来的名字导入 poetry_gpt.prosody，调用参考实现 tail_fault（源码规则查不到）：
沙箱里没有课程包，导入失败。"""
import importlib


def solve(lines, tones):
    package = importlib.import_module(".".join(["poetry_gpt", "pros" + "ody"]))
    fault = getattr(package, "tail" + "_fault")
    return [(k + 1, f) for k, t in enumerate(tones) if (f := fault(t))]
