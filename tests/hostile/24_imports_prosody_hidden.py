# 期望：答案错误
"""在 solve 里用拼出来的名字导入 poetry_gpt.prosody，调用参考实现 tail_fault：名字不是写出来的字符串的
import_module、getattr 在有源码规则的课里一律不许用，批改程序在运行之前就拦下（万一漏过，沙箱里也没有课程包）。"""
import importlib


def solve(lines, tones):
    package = importlib.import_module(".".join(["poetry_gpt", "pros" + "ody"]))
    fault = getattr(package, "tail" + "_fault")
    return [(k + 1, f) for k, t in enumerate(tones) if (f := fault(t))]
