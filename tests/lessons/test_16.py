"""第 16 课（优化器与学习率）：参考答案与包里的代码一致；看似合理的错误答案都过不了 ./poet check。"""

import textwrap

import pytest
import torch
from lesson_bank import assert_bank_entry_fails, wrong_verdict

from courseware.catalogue import BY_NUMBER


def load_solution(number):
    """lessons/NN/solution.py 当模块导入（只为取 solve 与辅助函数）。"""
    import importlib.util

    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------- 第 16 课：AdamW 的一步 ----------


def adamw_16(
    moments="""
        nm = beta1 * m[name] + (1 - beta1) * g
        nv = beta2 * v[name] + (1 - beta2) * g * g
""",
    correct="""
        m_hat = nm / (1 - beta1 ** t)
        v_hat = nv / (1 - beta2 ** t)
""",
    decay="weight_decay if p.dim() >= 2 else 0.0",
    update="""
        p = p * (1 - lr * decay)
        new_p[name] = p - lr * m_hat / (v_hat.sqrt() + EPS)
""",
    t="step + 1",
    grad="grads[name]",
):
    """参考答案的写法，换掉其中一段：每个错解只错一处。"""
    return (
        f"""
    beta1, beta2 = BETAS
    t = {t}
    new_p, new_m, new_v = {{}}, {{}}, {{}}
    for name, p in params.items():
        g = {grad}
        decay = {decay}
"""
        + textwrap.indent(textwrap.dedent(moments).strip(), " " * 8)
        + "\n"
        + textwrap.indent(textwrap.dedent(correct).strip(), " " * 8)
        + "\n"
        + textwrap.indent(textwrap.dedent(update).strip(), " " * 8)
        + """
        new_m[name], new_v[name] = nm, nv
    return new_p, new_m, new_v
"""
    )


BANK = {
    "Adam + L2：把衰减加进梯度": adamw_16(
        grad="grads[name] + (weight_decay * p if p.dim() >= 2 else 0)",
        update="""
        new_p[name] = p - lr * m_hat / (v_hat.sqrt() + EPS)
    """,
    ),
    "偏置与 LayerNorm 也衰减": adamw_16(decay="weight_decay"),
    "按名字里有没有 weight 决定衰减（LayerNorm 的 weight 也衰减了）": adamw_16(
        decay='weight_decay if name.endswith("weight") else 0.0'
    ),
    "只给线性层衰减，两张表（characters、positions）没衰减": adamw_16(
        decay='weight_decay if p.dim() >= 2 and not name.startswith(("characters", "positions")) else 0.0'
    ),
    "没有偏差校正": adamw_16(
        correct="""
        m_hat, v_hat = nm, nv
    """
    ),
    "偏差校正的 t 从 0 数（第一步除以 0）": adamw_16(
        t="step",
        correct="""
        m_hat = nm * (1 / (1 - beta1 ** t))
        v_hat = nv * (1 / (1 - beta2 ** t))
    """,
    ),
    "ε 加在开方里面": adamw_16(
        update="""
        p = p * (1 - lr * decay)
        new_p[name] = p - lr * m_hat / (v_hat + EPS).sqrt()
    """
    ),
    "衰减没有乘学习率": adamw_16(
        update="""
        p = p * (1 - decay)
        new_p[name] = p - lr * m_hat / (v_hat.sqrt() + EPS)
    """
    ),
    "先更新、再衰减": adamw_16(
        update="""
        new_p[name] = (p - lr * m_hat / (v_hat.sqrt() + EPS)) * (1 - lr * decay)
    """
    ),
    "beta1 与 beta2 用反了": adamw_16(
        moments="""
        nm = beta2 * m[name] + (1 - beta2) * g
        nv = beta1 * v[name] + (1 - beta1) * g * g
    """,
        correct="""
        m_hat = nm / (1 - beta2 ** t)
        v_hat = nv / (1 - beta1 ** t)
    """,
    ),
    "v 里放的是梯度的绝对值，不是平方": adamw_16(
        moments="""
        nm = beta1 * m[name] + (1 - beta1) * g
        nv = beta2 * v[name] + (1 - beta2) * g.abs()
    """,
        update="""
        p = p * (1 - lr * decay)
        new_p[name] = p - lr * m_hat / (v_hat + EPS)
    """,
    ),
    "梯度为 0 的格子跳过不动（只更新查到的行）": adamw_16(
        update="""
        p = p * (1 - lr * decay)
        moved = p - lr * m_hat / (v_hat.sqrt() + EPS)
        new_p[name] = torch.where(g != 0, moved, params[name])
    """
    ),
    "原地更新传进来的参数": adamw_16(
        update="""
        p.mul_(1 - lr * decay)
        p.sub_(lr * m_hat / (v_hat.sqrt() + EPS))
        new_p[name] = p.clone()
    """
    ),
    "捷径：torch.optim.AdamW": """
    names = list(params)
    leaves = [params[n].clone().requires_grad_() for n in names]
    groups = [{"params": [p for p in leaves if p.dim() >= 2], "weight_decay": weight_decay},
              {"params": [p for p in leaves if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=lr, betas=BETAS, eps=EPS)
    for n, p in zip(names, leaves):
        p.grad = grads[n].clone()
        opt.state[p] = {"step": torch.tensor(float(step)), "exp_avg": m[n].clone(), "exp_avg_sq": v[n].clone()}
    opt.step()
    return ({n: p.detach() for n, p in zip(names, leaves)}, {n: opt.state[p]["exp_avg"] for n, p in zip(names, leaves)},
            {n: opt.state[p]["exp_avg_sq"] for n, p in zip(names, leaves)})
    """,
}


@pytest.mark.parametrize("name", BANK)
def test_lesson_16_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(16, name, BANK[name], tmp_path)


def test_lesson_16_zero_division_names_the_step_count(tmp_path):
    message = wrong_verdict(16, BANK["偏差校正的 t 从 0 数（第一步除以 0）"], tmp_path).message
    assert "t = step + 1" in message, message


def test_lesson_16_reference_body_passes(tmp_path):
    """错解用的 adamw_16 模板本身（什么也不换）是对的：每个错解真的只错一处。"""
    verdict = wrong_verdict(16, adamw_16(), tmp_path)
    assert verdict.passed, verdict.message


def test_lesson_16_solution_is_torch_adamw_with_the_courses_groups():
    """参考答案连走 5 步 = torch.optim.AdamW 按 train.make_optimizer 分组（矩阵衰减，偏置与 LayerNorm 不衰减）走 5 步，
    每一步的参数与 exp_avg、exp_avg_sq 都相同；学习率按 train.learning_rate 的日程变化。"""
    from poetry_gpt.model import ModelConfig, PoetryGPT
    from poetry_gpt.train import learning_rate, make_optimizer
    from poetry_gpt.train_config import TrainConfig

    solution = load_solution(16)
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=20, context_length=8, width=8, n_layers=1, n_heads=2))
    config = TrainConfig(steps=5, warmup=2, lr=3e-2, weight_decay=0.1)
    optimizer = make_optimizer(model, config)
    assert {g["weight_decay"] for g in optimizer.param_groups} == {0.1, 0.0}
    assert optimizer.defaults["betas"] == solution.BETAS and optimizer.defaults["eps"] == solution.EPS
    params = {n: p.detach().clone() for n, p in model.named_parameters()}
    m = {n: torch.zeros_like(p) for n, p in params.items()}
    v = {n: torch.zeros_like(p) for n, p in params.items()}
    ids = torch.randint(0, 20, (4, 8))
    for step in range(5):
        lr = learning_rate(step, config)
        for group in optimizer.param_groups:
            group["lr"] = lr
        optimizer.zero_grad()
        model(ids, ids)[1].backward()
        grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
        optimizer.step()
        params, m, v = solution.solve(params, grads, m, v, step, lr, config.weight_decay)
        for n, p in model.named_parameters():
            state = optimizer.state[p]
            assert torch.allclose(params[n], p.detach(), atol=1e-6), (step, n)
            assert torch.allclose(m[n], state["exp_avg"], atol=1e-7) and torch.allclose(
                v[n], state["exp_avg_sq"], atol=1e-9
            )
