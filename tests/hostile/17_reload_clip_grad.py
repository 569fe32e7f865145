# 期望：答案错误
"""importlib.reload torch 的 clip_grad 模块，拿到一份没换过的新 clip_grad_norm_（名字经 pkgutil.resolve_name 拼出来）：
旧的绊线只换了已有的函数对象，这份新的就是原物。现在绊线所在的源码文件再被执行，就碰上绊线。"""
import importlib
import pkgutil
import sys

import torch
from torch.nn import functional as F


def tiny_model(params, ids):
    characters, positions, mix = params
    hidden = characters[ids] + positions[: ids.shape[1]]
    hidden = torch.tanh(hidden @ mix)
    return hidden @ characters.T


def solve(params, ids, targets, lr, max_norm):
    module = importlib.reload(sys.modules["torch.nn.utils.clip" + "_grad"])
    clip = pkgutil.resolve_name(module.__name__ + ":clip" + "_grad_norm_")
    params = [p.detach().clone().requires_grad_() for p in params]
    logits = tiny_model(params, ids)
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)
    loss.backward()
    total = clip(params, max_norm)
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
    return loss.item(), total.item(), [p.detach() for p in params]
