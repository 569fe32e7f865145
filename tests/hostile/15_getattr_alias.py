# 期望：答案错误
"""getattr 换个名字、名字写成 f-string：旧的规则只认直接调用 getattr 时写出的普通字符串。"""
import torch.nn.functional as F

pick = getattr


def solve(logits, targets, mask):
    return pick(F, f"cross_entropy")(logits[mask], targets[mask])
