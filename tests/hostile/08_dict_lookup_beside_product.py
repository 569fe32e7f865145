# 期望：答案错误
"""不用下标：把表放进 dict 按编号 get 出行，代码里另有一次与结果无关的 @。旧的规则只看代码里有没有矩阵乘法。
现在看结果：表里没被查到的一行有 inf 时，乘整张表的结果这一列全是 nan，查出来的是有限的数。"""
import torch


def solve(ids, weight):
    rows = dict(zip(range(weight.shape[0]), weight))
    gram = weight @ weight.T  # noqa: F841
    picked = [rows.get(k) for k in ids.flatten().tolist()]
    return torch.stack(picked).view(*ids.shape, weight.shape[1])
