"""第 15 课（交叉熵：给预测打分）：参考答案与包里的代码一致；看似合理的错误答案都过不了 ./poet check。"""

import math

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


# ---------- 第 15 课：带掩码的交叉熵 ----------

BANK = {
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


@pytest.mark.parametrize("name", BANK)
def test_lesson_15_wrong_solutions_fail(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”（源码规则与随机用例各管一部分）。"""
    assert_bank_entry_fails(15, name, BANK[name], tmp_path)


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
    message = wrong_verdict(15, BANK["捷径：分布对象的 log_prob"], tmp_path).message
    assert "distributions" in message and "log-softmax 自己算起" in message, message


def test_lesson_15_solution_matches_the_package():
    """参考答案 = F.cross_entropy(ignore_index) = 模型的 forward = 训练步的 scored_loss（同一把尺子）。"""
    from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
    from poetry_gpt.loss import scored_loss
    from poetry_gpt.model import IGNORE_INDEX, ModelConfig, PoetryGPT

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
    assert abs(ours.item() - math.log(len(tok))) < 0.1  # 未训练：约 ln V
    big = torch.randn(3, 5, 7) * 1000  # 很大的 logits 也与库函数一致
    t, m = torch.randint(0, 7, (3, 5)), torch.rand(3, 5) < 0.5
    m[0, 0] = True
    assert torch.allclose(solve(big, t, m), F.cross_entropy(big[m], t[m]), rtol=1e-5)
