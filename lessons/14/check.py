"""第 14 课差分检查：随机配置的参数个数，比较学习者与参考答案的 solve。

``real_count`` 用真正的 PoetryGPT 数同一个配置的参数；tests/lessons/test_14.py 用它确认参考答案与模型一致。
"""

import torch

# 源码规则（批改程序在运行练习之前用 ast 查，删掉底部的可见检查也躲不过；见 grading.rule_problem）：
# 本课要由公式数出参数；建课程包里现成的 PoetryGPT 再调用它的 num_parameters()，答案对，却一步也没数
FORBIDDEN = {
    name: f"请不要用 {name}：本课要你按各层的形状亲手数出参数个数，而不是建课程包里现成的模型再让它报数"
    for name in ("poetry_gpt", "num_parameters")
}


def cases(gen):
    """24 个用例：(vocab_size, context_length, width, n_layers)，含默认配置与最小的配置；其余随机。"""
    out = [(6672, 64, 128, 4), (8, 1, 4, 0)]  # 默认配置；最小的：0 层、前文长 1、宽 4
    for _ in range(22):
        out.append(
            (
                int(torch.randint(8, 9000, (1,), generator=gen)),
                int(torch.randint(1, 257, (1,), generator=gen)),
                int(torch.randint(1, 65, (1,), generator=gen)) * 4,
                int(torch.randint(0, 13, (1,), generator=gen)),
            )
        )
    return out


def real_count(vocab_size, context_length, width, n_layers):
    """在 meta 设备上建一个真正的 PoetryGPT（不分配内存），返回它的 num_parameters()。"""
    from poetry_gpt.model import ModelConfig, PoetryGPT

    with torch.device("meta"):
        model = PoetryGPT(
            ModelConfig(vocab_size=vocab_size, context_length=context_length, width=width, n_layers=n_layers, n_heads=1)
        )
    return model.num_parameters()


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "默认配置 (6672, 64, 128, 4)": lambda case, want: case == (6672, 64, 128, 4),
    "0 层（只有两张表和最后的 LayerNorm）": lambda case, want: case[3] == 0,
    "前文长 1": lambda case, want: case[1] == 1,
    "很多层（层数占大头）": lambda case, want: case[3] >= 8,
}
