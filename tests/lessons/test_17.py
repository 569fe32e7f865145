"""第 17 课（训练循环）：参考答案与包里的代码一致；看似合理的错误答案都过不了 ./poet check。"""

import textwrap

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, wrong_verdict
from torch.nn import functional as F

from courseware.catalogue import BY_NUMBER


def load_solution(number):
    """lessons/NN/solution.py 当模块导入（只为取 solve 与辅助函数）。"""
    import importlib.util

    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 第 17 课：带梯度裁剪的一步训练 ----------

STEP_17 = """
    params = [p.detach().clone().requires_grad_() for p in params]
    logits = tiny_model(params, ids)
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)
    loss.backward()
    grads = [p.grad for p in params]
    total = torch.sqrt(sum((g ** 2).sum() for g in grads))
    {clip}
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
    return loss.item(), {norm}, [p.detach() for p in params]
"""


def step_17(clip, norm="total.item()"):
    return STEP_17.format(clip=textwrap.indent(textwrap.dedent(clip).strip(), "    ").strip(), norm=norm)


BANK = {
    "逐个参数各自裁剪": step_17("""
        for g in grads:
            if g.norm() > max_norm:
                g.mul_(max_norm / (g.norm() + 1e-6))
    """),
    "不论大小都缩放到上限": step_17("""
        for g in grads:
            g.mul_(max_norm / (total + 1e-6))
    """),
    "总范数写成各参数范数之和": step_17("""
        total = sum(g.norm() for g in grads)
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """),
    "按数值截断（clip_grad_value）": step_17("""
        for g in grads:
            g.clamp_(-max_norm, max_norm)
    """),
    "不裁剪": step_17("pass"),
    "返回裁剪之后的范数": step_17(
        """
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """,
        norm="min(total.item(), max_norm)",
    ),
    "只看第一个参数的范数": step_17("""
        first = grads[0].norm()
        if first > max_norm:
            for g in grads:
                g.mul_(max_norm / (first + 1e-6))
    """),
    "先更新、后裁剪": """
        params = [p.detach().clone().requires_grad_() for p in params]
        loss = F.cross_entropy(tiny_model(params, ids).flatten(0, 1), targets.flatten(), ignore_index=-100)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
        if total > max_norm:
            for p in params:
                p.grad.mul_(max_norm / (total + 1e-6))
        return loss.item(), total.item(), [p.detach() for p in params]
    """,
    "原地更新传进来的参数": """
        for p in params:
            p.requires_grad_()
        loss = F.cross_entropy(tiny_model(params, ids).flatten(0, 1), targets.flatten(), ignore_index=-100)
        loss.backward()
        total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
        if total > max_norm:
            for p in params:
                p.grad.mul_(max_norm / (total + 1e-6))
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        return loss.item(), total.item(), [p.detach().clone() for p in params]
    """,
    "直接调用 clip_grad_norm_": """
        params = [p.detach().clone().requires_grad_() for p in params]
        loss = F.cross_entropy(tiny_model(params, ids).flatten(0, 1), targets.flatten(), ignore_index=-100)
        loss.backward()
        total = torch.nn.utils.clip_grad_norm_(params, max_norm)
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        return loss.item(), total.item(), [p.detach() for p in params]
    """,
    "捷径：get_total_norm 算总范数": step_17("""
        total = torch.nn.utils.get_total_norm(grads)
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """),
    "捷径：clip_grads_with_norm_": step_17("""
        from torch.nn.utils import clip_grads_with_norm_
        if total > max_norm:
            clip_grads_with_norm_(params, max_norm, total)
    """),
    "总范数忘了开方（平方和）": step_17("""
        total = sum((g ** 2).sum() for g in grads)
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """),
    "缩放时除以比例而不是乘": step_17("""
        if total > max_norm:
            for g in grads:
                g.div_(max_norm / (total + 1e-6))
    """),
    "范数用绝对值之和（L1）": step_17("""
        total = sum(g.abs().sum() for g in grads)
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """),
    "损失用求和不是平均": """
        params = [p.detach().clone().requires_grad_() for p in params]
        logits = tiny_model(params, ids)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100, reduction="sum")
        loss.backward()
        total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
        if total > max_norm:
            for p in params:
                p.grad.mul_(max_norm / (total + 1e-6))
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        return loss.item(), total.item(), [p.detach() for p in params]
    """,
    "缩放系数写死成 1 / total（忘了乘上限）": step_17("""
        if total > max_norm:
            for g in grads:
                g.mul_(1 / (total + 1e-6))
    """),
}


@pytest.mark.parametrize("name", BANK)
def test_lesson_17_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(17, name, BANK[name], tmp_path)


RIGHT_17 = {
    "注释里写着“不用 clip_grad_norm_”": step_17("""
        # 不用 clip_grad_norm_：自己按总范数缩放
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """),
    "把梯度拼成一个向量再求范数": step_17("""
        total = torch.cat([g.flatten() for g in grads]).norm()
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """),
}


@pytest.mark.parametrize("name", RIGHT_17)
def test_lesson_17_correct_solutions_pass(name, tmp_path):
    verdict = wrong_verdict(17, RIGHT_17[name], tmp_path)
    assert verdict.passed, (name, verdict.kind, verdict.message)


def test_lesson_17_solution_is_the_training_step():
    """参考答案 = 训练步里的做法：backward → torch.nn.utils.clip_grad_norm_(全部参数, 上限) → 优化器一步（这里是 SGD）。
    check.py 挑上限用的前向与练习里的 tiny_model 相同。"""
    from importlib.util import module_from_spec, spec_from_file_location

    solution = load_solution(17)
    spec = spec_from_file_location("check_17_test", BY_NUMBER[17].folder / "check.py")
    check = module_from_spec(spec)
    spec.loader.exec_module(check)
    for params, ids, targets, lr, max_norm in check.cases(torch.Generator().manual_seed(1))[:8]:
        loss, total, new = solution.solve(params, ids, targets, lr, max_norm)
        leaves = [p.clone().requires_grad_() for p in params]
        torch_loss = F.cross_entropy(
            solution.tiny_model(leaves, ids).flatten(0, 1), targets.flatten(), ignore_index=-100
        )
        torch_loss.backward()
        assert [p.grad.norm().item() for p in leaves] == pytest.approx(
            check._grad_norms(params, ids, targets), rel=1e-5
        )
        torch_total = torch.nn.utils.clip_grad_norm_(leaves, max_norm)
        optimizer = torch.optim.SGD(leaves, lr=lr)
        optimizer.step()
        assert loss == pytest.approx(torch_loss.item(), rel=1e-6) and total == pytest.approx(
            torch_total.item(), rel=1e-5
        )
        assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(new, leaves))
