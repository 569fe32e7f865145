"""第 16 课差分检查：PoetryGPT 形状的参数（矩阵、偏置、LayerNorm）、随机的梯度与滑动平均，比较一步 AdamW 之后的参数与 m、v。"""

import torch

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；注释与字符串不算；见 grading.rule_problem）。
# torch.optim 里的优化器（AdamW、Adam 与它们的 _functional 实现）一步做完了本课要练的更新
FORBIDDEN = {
    "optim": "本课要亲手写出 AdamW 的一步：不要用 torch.optim 里现成的优化器，它替你做完了滑动平均、偏差校正和解耦衰减",
    "poetry_gpt": "本课要亲手写出 AdamW 的一步：不要调用课程包 poetry_gpt 里现成的 make_optimizer、训练步",
}
# torch 顶层的 _fused_adamw_ 等一步做完同样的更新
FORBIDDEN.update({name: FORBIDDEN["optim"] for name in ("adam", "fused")})
# 源码规则之外的第二道关：差分检查时这些函数与算子换成绊线（见 runner.install_tripwires）
TRIPWIRES = (
    "aten::_fused_adamw_",
    "aten::_fused_adam_",
    "torch._fused_adamw_",
    "torch._fused_adam_",
    "torch.optim.AdamW",
    "torch.optim.Adam",
    "torch.optim.adam.adam",  # 函数式的一步（AdamW 也走它：decoupled_weight_decay=True）
    "torch.optim.adamw.adamw",
    "torch.optim.adam._single_tensor_adam",
    "torch.optim.adam._multi_tensor_adam",
)


def explain(message):
    """子进程出错时补一句：除以 0 多半是偏差校正的 t 从 0 数了。"""
    if "ZeroDivisionError" in message:
        return (
            "除以了 0（ZeroDivisionError）：偏差校正用的是做完这一步之后的步数 t = step + 1。第一步 step = 0、t = 1，"
            "1 − β₁ᵗ = 0.1；把 step 直接当 t，第一步就是 1 − β₁⁰ = 0。"
        )
    return None


def _int(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def _shapes(V, L, C):
    """一个 1 层 PoetryGPT 的参数名与形状（与 poetry_gpt.model 的命名相同）：矩阵、偏置与 LayerNorm 都有。"""
    return {
        "characters.weight": (V, C),
        "positions.weight": (L, C),
        "blocks.0.norm1.weight": (C,),
        "blocks.0.norm1.bias": (C,),
        "blocks.0.attention.qkv.weight": (3 * C, C),
        "blocks.0.attention.qkv.bias": (3 * C,),
        "blocks.0.mlp.up.weight": (4 * C, C),
        "blocks.0.mlp.up.bias": (4 * C,),
        "norm.weight": (C,),
        "norm.bias": (C,),
    }


def cases(gen):
    """24 个用例：(params, grads, m, v, step, lr, weight_decay)，按顺序轮换四种：

    0 第一步（step = 0，m、v 全是 0：m̂ / √v̂ 约为 ±1）；1 训练中随机的一步（step 1–3000，m、v 是随机的历史）；
    2 字向量表里有几行这一步没被查到，梯度是 0（动量与衰减照样让它们移动）；3 大的学习率与衰减（lr 0.1–0.5）：
    “先更新再衰减”和“衰减没乘 lr”在这里差得明显。LayerNorm 的 weight 是一维的、名字里有 weight，也不衰减。
    """
    out = []
    for i in range(24):
        kind = i % 4
        V, L, C = _int(gen, 3, 12), _int(gen, 2, 8), _int(gen, 2, 6)
        shapes = _shapes(V, L, C)
        params = {name: torch.randn(*shape, generator=gen) for name, shape in shapes.items()}
        params["blocks.0.norm1.weight"] = 1 + 0.1 * params["blocks.0.norm1.weight"]
        params["norm.weight"] = 1 + 0.1 * params["norm.weight"]
        scale = [1e-3, 0.1, 1.0, 5.0][_int(gen, 0, 4)]
        grads = {name: scale * torch.randn(*shape, generator=gen) for name, shape in shapes.items()}
        if kind == 0:
            step = 0
            m = {name: torch.zeros(shape) for name, shape in shapes.items()}
            v = {name: torch.zeros(shape) for name, shape in shapes.items()}
        else:
            step = _int(gen, 1, 3000) if i % 3 else _int(gen, 1, 5)
            m = {name: scale * 0.5 * torch.randn(*shape, generator=gen) for name, shape in shapes.items()}
            v = {
                name: (scale * torch.randn(*shape, generator=gen)) ** 2 + scale**2 * 0.1
                for name, shape in shapes.items()
            }
        if kind == 2:
            unseen = torch.rand(V, generator=gen) < 0.5
            grads["characters.weight"][unseen] = 0.0
        lr = [0.1, 0.5][_int(gen, 0, 2)] if kind == 3 else [3e-3, 1e-3, 1e-2][_int(gen, 0, 3)]
        weight_decay = [0.1, 0.5][_int(gen, 0, 2)] if kind == 3 else [0.1, 0.1, 0.01, 0.0][_int(gen, 0, 4)]
        out.append((params, grads, m, v, step, lr, weight_decay))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "第一步（step = 0，m、v 全是 0）": lambda case, want: case[4] == 0,
    "训练中的一步（step ≥ 1）": lambda case, want: case[4] >= 1,
    "step 上千（偏差校正几乎是 1）": lambda case, want: case[4] >= 1000,
    "字向量表里有几行梯度是 0（照样会动）": lambda case, want: bool(
        (case[1]["characters.weight"] == 0).all(dim=1).any()
    ),
    "大的学习率与衰减（lr ≥ 0.1）": lambda case, want: case[5] >= 0.1 and case[6] >= 0.1,
    "weight_decay = 0": lambda case, want: case[6] == 0,
    "一维参数（偏置与 LayerNorm 的 weight：不衰减）": lambda case, want: "norm.weight" in case[0],
}
