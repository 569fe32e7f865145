"""第 15–17 课：参考答案与包里的代码一致；每课一组看似合理的错误答案，都过不了 ./poet check。"""
import math
import textwrap

import pytest
import torch
from torch.nn import functional as F

from poetry_gpt.courseware.catalogue import BY_NUMBER

from lesson_bank import assert_bank_entry_fails, wrong_verdict


def load_solution(number):
    """lessons/NN/solution.py 当模块导入（只为取 solve 与辅助函数）。"""
    import importlib.util
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module






# ---------- 第 15 课：带掩码的交叉熵 ----------

WRONG_15 = {
    "除以 B·T": """
        z = logits - logits.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        per = -lp.gather(-1, targets.clamp(min=0)[..., None]).squeeze(-1)
        return (per * mask).sum() / mask.numel()
    """,
    "先每行平均再平均（跳过空行）": """
        z = logits - logits.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        per = -lp.gather(-1, targets.clamp(min=0)[..., None]).squeeze(-1)
        rows = [per[b][mask[b]].mean() for b in range(len(per)) if mask[b].any()]
        return torch.stack(rows).mean()
    """,
    "不减最大值": """
        z = logits[mask]
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -lp.gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "先 softmax 再取对数": """
        z = logits[mask]
        p = torch.softmax(z, dim=-1)
        return -p.gather(-1, targets[mask][:, None]).log().sum() / mask.sum()
    """,
    "求和不求平均": """
        z = logits[mask]
        z = z - z.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -lp.gather(-1, targets[mask][:, None]).sum()
    """,
    "在 T 维上做 log-softmax": """
        z = logits - logits.max(dim=1, keepdim=True).values
        lp = z - z.exp().sum(dim=1, keepdim=True).log()
        return -lp[mask].gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "不看掩码": """
        z = logits - logits.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -lp.gather(-1, targets.clamp(min=0)[..., None]).mean()
    """,
    "除以有计分格子的行数": """
        z = logits[mask]
        z = z - z.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -lp.gather(-1, targets[mask][:, None]).sum() / mask.any(dim=1).sum()
    """,
    "原地减最大值（改了输入）": """
        logits -= logits.max(dim=-1, keepdim=True).values
        lp = logits - logits.exp().sum(dim=-1, keepdim=True).log()
        return -lp[mask].gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "直接调用 F.cross_entropy": """
        from torch.nn import functional as F
        return F.cross_entropy(logits[mask], targets[mask])
    """,
    "捷径：分布对象的 log_prob": """
        dist = torch.distributions.Categorical(logits=logits[mask])
        return -dist.log_prob(targets[mask]).mean()
    """,
    "捷径：from torch.distributions import Categorical": """
        from torch.distributions import Categorical
        return -Categorical(logits=logits[mask]).log_prob(targets[mask]).sum() / mask.sum()
    """,
    "捷径：张量方法 .log_softmax() 再 gather": """
        lp = logits[mask].log_softmax(dim=-1)
        return -lp.gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "捷径：自己减 logsumexp": """
        z = logits[mask]
        lp = z - torch.special.logsumexp(z, dim=-1, keepdim=True)
        return -lp.gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "捷径：nn.NLLLoss 接自己写的 log-softmax": """
        z = logits[mask]
        z = z - z.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return torch.nn.NLLLoss()(lp, targets[mask])
    """,
    "减去整批的最大值，不是每行的": """
        z = logits[mask]
        z = z - z.max()
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -lp.gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "返回 Python 的 float（.item()）": """
        z = logits[mask]
        z = z - z.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return (-lp.gather(-1, targets[mask][:, None]).sum() / mask.sum()).item()
    """,
    "用 float64 算，返回 float64": """
        z = logits[mask].double()
        z = z - z.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -lp.gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "以 2 为底（比特/字）": """
        z = logits[mask]
        z = z - z.max(dim=-1, keepdim=True).values
        lp = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -lp.gather(-1, targets[mask][:, None]).sum() / mask.sum() / math.log(2)
    """,
}


@pytest.mark.parametrize("name", WRONG_15)
def test_lesson_15_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”（源码规则与随机用例各管一部分）。"""
    assert_bank_entry_fails(15, name, WRONG_15[name], tmp_path)


RIGHT_15 = {
    "注释里写着“不用 F.cross_entropy”": """
        # 不用 F.cross_entropy，也不用 log_softmax：自己减最大值、减 ln Σ exp
        z = logits[mask]
        z = z - z.max(dim=-1, keepdim=True).values
        log_probs = z - z.exp().sum(dim=-1, keepdim=True).log()
        return -log_probs.gather(-1, targets[mask][:, None]).sum() / mask.sum()
    """,
    "自己的函数叫 log_softmax_rows": """
        def log_softmax_rows(z):
            z = z - z.max(dim=-1, keepdim=True).values
            return z - z.exp().sum(dim=-1, keepdim=True).log()
        picked = log_softmax_rows(logits[mask]).gather(-1, targets[mask][:, None])
        return -picked.mean()
    """,
}


@pytest.mark.parametrize("name", RIGHT_15)
def test_lesson_15_correct_solutions_pass(name, tmp_path):
    """源码规则用 ast 查名字：注释里提到捷径、或者自己定义的函数名里含有它，都不误伤。"""
    verdict = wrong_verdict(15, RIGHT_15[name], tmp_path)
    assert verdict.passed, (name, verdict.kind, verdict.message)


def test_lesson_15_shortcut_message_says_why(tmp_path):
    message = wrong_verdict(15, WRONG_15["捷径：分布对象的 log_prob"], tmp_path).message
    assert "distributions" in message and "log-softmax 自己算起" in message, message


def test_lesson_15_solution_matches_the_package():
    """参考答案 = F.cross_entropy(ignore_index) = 模型的 forward = 训练步的 scored_loss（同一把尺子）。"""
    from poetry_gpt.model import IGNORE_INDEX
    from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
    from poetry_gpt.loss import scored_loss
    from poetry_gpt.model import ModelConfig, PoetryGPT
    solve = load_solution(15).solve
    tok = default_tokenizer()
    x, y, mask = make_batch([encode_sample(p, tok) for p in load_poems("val")[:6]])
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(tok), width=16, n_layers=1, n_heads=2)).eval()
    with torch.no_grad():
        logits, loss = model(x, y.masked_fill(~mask, IGNORE_INDEX))
        fast = scored_loss(model, x, y, mask)
    ours = solve(logits, y, mask)
    assert ours.dim() == 0 and ours.dtype == torch.float32
    assert torch.allclose(ours, loss, atol=1e-5) and torch.allclose(ours, fast, atol=1e-5)
    assert abs(ours.item() - math.log(len(tok))) < 0.1          # 未训练：约 ln V
    big = torch.randn(3, 5, 7) * 1000                            # 很大的 logits 也与库函数一致
    t, m = torch.randint(0, 7, (3, 5)), torch.rand(3, 5) < 0.5
    m[0, 0] = True
    assert torch.allclose(solve(big, t, m), F.cross_entropy(big[m], t[m]), rtol=1e-5)




# ---------- 第 16 课：AdamW 的一步 ----------

def adamw_16(moments="""
        nm = beta1 * m[name] + (1 - beta1) * g
        nv = beta2 * v[name] + (1 - beta2) * g * g
""", correct="""
        m_hat = nm / (1 - beta1 ** t)
        v_hat = nv / (1 - beta2 ** t)
""", decay="weight_decay if p.dim() >= 2 else 0.0", update="""
        p = p * (1 - lr * decay)
        new_p[name] = p - lr * m_hat / (v_hat.sqrt() + EPS)
""", t="step + 1", grad="grads[name]"):
    """参考答案的写法，换掉其中一段：每个错解只错一处。"""
    return f"""
    beta1, beta2 = BETAS
    t = {t}
    new_p, new_m, new_v = {{}}, {{}}, {{}}
    for name, p in params.items():
        g = {grad}
        decay = {decay}
""" + textwrap.indent(textwrap.dedent(moments).strip(), " " * 8) + "\n" \
        + textwrap.indent(textwrap.dedent(correct).strip(), " " * 8) + "\n" \
        + textwrap.indent(textwrap.dedent(update).strip(), " " * 8) + """
        new_m[name], new_v[name] = nm, nv
    return new_p, new_m, new_v
"""


WRONG_16 = {
    "Adam + L2：把衰减加进梯度": adamw_16(grad="grads[name] + (weight_decay * p if p.dim() >= 2 else 0)", update="""
        new_p[name] = p - lr * m_hat / (v_hat.sqrt() + EPS)
    """),
    "偏置与 LayerNorm 也衰减": adamw_16(decay="weight_decay"),
    "按名字里有没有 weight 决定衰减（LayerNorm 的 weight 也衰减了）": adamw_16(
        decay='weight_decay if name.endswith("weight") else 0.0'),
    "只给线性层衰减，两张表（characters、positions）没衰减": adamw_16(
        decay='weight_decay if p.dim() >= 2 and not name.startswith(("characters", "positions")) else 0.0'),
    "没有偏差校正": adamw_16(correct="""
        m_hat, v_hat = nm, nv
    """),
    "偏差校正的 t 从 0 数（第一步除以 0）": adamw_16(t="step", correct="""
        m_hat = nm * (1 / (1 - beta1 ** t))
        v_hat = nv * (1 / (1 - beta2 ** t))
    """),
    "ε 加在开方里面": adamw_16(update="""
        p = p * (1 - lr * decay)
        new_p[name] = p - lr * m_hat / (v_hat + EPS).sqrt()
    """),
    "衰减没有乘学习率": adamw_16(update="""
        p = p * (1 - decay)
        new_p[name] = p - lr * m_hat / (v_hat.sqrt() + EPS)
    """),
    "先更新、再衰减": adamw_16(update="""
        new_p[name] = (p - lr * m_hat / (v_hat.sqrt() + EPS)) * (1 - lr * decay)
    """),
    "beta1 与 beta2 用反了": adamw_16(moments="""
        nm = beta2 * m[name] + (1 - beta2) * g
        nv = beta1 * v[name] + (1 - beta1) * g * g
    """, correct="""
        m_hat = nm / (1 - beta2 ** t)
        v_hat = nv / (1 - beta1 ** t)
    """),
    "v 里放的是梯度的绝对值，不是平方": adamw_16(moments="""
        nm = beta1 * m[name] + (1 - beta1) * g
        nv = beta2 * v[name] + (1 - beta2) * g.abs()
    """, update="""
        p = p * (1 - lr * decay)
        new_p[name] = p - lr * m_hat / (v_hat + EPS)
    """),
    "梯度为 0 的格子跳过不动（只更新查到的行）": adamw_16(update="""
        p = p * (1 - lr * decay)
        moved = p - lr * m_hat / (v_hat.sqrt() + EPS)
        new_p[name] = torch.where(g != 0, moved, params[name])
    """),
    "原地更新传进来的参数": adamw_16(update="""
        p.mul_(1 - lr * decay)
        p.sub_(lr * m_hat / (v_hat.sqrt() + EPS))
        new_p[name] = p.clone()
    """),
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


@pytest.mark.parametrize("name", WRONG_16)
def test_lesson_16_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(16, name, WRONG_16[name], tmp_path)


def test_lesson_16_zero_division_names_the_step_count(tmp_path):
    message = wrong_verdict(16, WRONG_16["偏差校正的 t 从 0 数（第一步除以 0）"], tmp_path).message
    assert "t = step + 1" in message, message


def test_lesson_16_reference_body_passes(tmp_path):
    """错解用的 adamw_16 模板本身（什么也不换）是对的：每个错解真的只错一处。"""
    verdict = wrong_verdict(16, adamw_16(), tmp_path)
    assert verdict.passed, verdict.message


def test_lesson_16_solution_is_torch_adamw_with_the_courses_groups():
    """参考答案连走 5 步 = torch.optim.AdamW 按 train.make_optimizer 分组（矩阵衰减，偏置与 LayerNorm 不衰减）走 5 步，
    每一步的参数与 exp_avg、exp_avg_sq 都相同；学习率按 train.learning_rate 的日程变化。"""
    from poetry_gpt.model import ModelConfig, PoetryGPT
    from poetry_gpt.train import TrainConfig, learning_rate, make_optimizer
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
            assert torch.allclose(m[n], state["exp_avg"], atol=1e-7) and torch.allclose(v[n], state["exp_avg_sq"], atol=1e-9)


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


WRONG_17 = {
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
    "返回裁剪之后的范数": step_17("""
        if total > max_norm:
            for g in grads:
                g.mul_(max_norm / (total + 1e-6))
    """, norm="min(total.item(), max_norm)"),
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


@pytest.mark.parametrize("name", WRONG_17)
def test_lesson_17_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”。"""
    assert_bank_entry_fails(17, name, WRONG_17[name], tmp_path)


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
        torch_loss = F.cross_entropy(solution.tiny_model(leaves, ids).flatten(0, 1), targets.flatten(), ignore_index=-100)
        torch_loss.backward()
        assert [p.grad.norm().item() for p in leaves] == pytest.approx(check._grad_norms(params, ids, targets), rel=1e-5)
        torch_total = torch.nn.utils.clip_grad_norm_(leaves, max_norm)
        optimizer = torch.optim.SGD(leaves, lr=lr)
        optimizer.step()
        assert loss == pytest.approx(torch_loss.item(), rel=1e-6) and total == pytest.approx(torch_total.item(), rel=1e-5)
        assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(new, leaves))
