"""第 13 课差分检查：随机形状、尺度、weight、bias 与 eps 的层归一化，比较学习者与参考答案的 solve。"""

import torch

# 源码规则（批改程序在运行练习之前查，删掉底部的可见检查也躲不过；见 grading.rule_problem）
FORBIDDEN = {name: f"请不要调用 {name}：本课练的是自己求均值、方差，再缩放平移" for name in ("layer_norm", "layernorm")}
# 别的归一化一步做完的是同一件事（group_norm 分 1 组、rms_norm 作用在减去均值之后……）
FORBIDDEN.update(
    {
        name: f"请不要调用 {name}：本课练的是自己求均值、方差，再缩放平移"
        for name in (
            "group_norm",
            "groupnorm",
            "instance_norm",
            "instancenorm",
            "batch_norm",
            "batchnorm",
            "rms_norm",
            "rmsnorm",
        )
    }
)
# 源码规则之外的第二道关：差分检查时这些函数与算子换成绊线（见 runner.install_tripwires）
TRIPWIRES = (
    "aten::native_layer_norm",
    "aten::native_group_norm",
    "aten::native_batch_norm",
    "aten::_native_batch_norm_legit",
    "aten::_native_batch_norm_legit_no_training",
    "aten::_batch_norm_with_update",
    "aten::_batch_norm_no_update",
    "aten::rms_norm",
    "aten::_fused_rms_norm",
    "torch.nn.functional.layer_norm",
    "torch.nn.functional.group_norm",
    "torch.nn.functional.instance_norm",
    "torch.nn.functional.batch_norm",
    "torch.nn.functional.rms_norm",
    "torch.layer_norm",
    "torch.group_norm",
    "torch.rms_norm",
)


def cases(gen):
    """24 个用例：(x [..., C], weight [C], bias [C], eps)。x 的均值、尺度随机，eps 有大有小。"""
    out = []
    for i in range(24):
        B, T, C = (int(torch.randint(1, hi, (1,), generator=gen)) for hi in (4, 8, 33))
        C = max(C, 2)
        shape = (B, T, C) if i % 3 else (T, C)
        shift = 4 * torch.randn(1, generator=gen).item()
        scale = 0.05 + 3 * torch.rand(1, generator=gen).item()
        eps = (1e-5, 1e-2, 0.5)[i % 3]  # 大的 eps 能看出有没有把它加对地方
        out.append(
            (
                shift + scale * torch.randn(*shape, generator=gen),
                1 + 0.5 * torch.randn(C, generator=gen),
                0.3 * torch.randn(C, generator=gen),
                eps,
            )
        )
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "x 是 [B, T, C]": lambda case, want: case[0].dim() == 3,
    "x 是 [T, C]": lambda case, want: case[0].dim() == 2,
    "大的 eps（0.5：加在方差上，不是标准差上）": lambda case, want: case[3] == 0.5,
    "小的 eps（1e-5）": lambda case, want: case[3] == 1e-5,
    "均值离 0 远、尺度大": lambda case, want: abs(float(case[0].mean())) > 2 and float(case[0].std()) > 1,
    "尺度很小（方差比 eps 还小）": lambda case, want: float(case[0].var(dim=-1, unbiased=False).min()) < case[3],
}
