# 期望：答案错误
"""用 match 的类模式取出 F.cross_entropy：名字只写在模式里（旧的规则不读这种语法）。"""
import torch.nn.functional as F

match F:
    case object(cross_entropy=ce):
        pass


def solve(logits, targets, mask):
    return ce(logits[mask], targets[mask])
