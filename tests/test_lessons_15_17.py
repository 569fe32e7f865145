"""第 15–17 课：参考答案与包里的代码一致；每课一组看似合理的错误答案，都过不了 ./poet check。"""
import math
import re
import textwrap

import pytest
import torch
from torch.nn import functional as F

from poetry_gpt.courseware.catalogue import BY_NUMBER
from poetry_gpt.courseware.grading import Limits, check_file


def load_solution(number):
    """lessons/NN/solution.py 当模块导入（只为取 solve 与辅助函数）。"""
    import importlib.util
    path = BY_NUMBER[number].folder / "solution.py"
    spec = importlib.util.spec_from_file_location(f"solution_{number}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_body(number, body):
    """参考答案的文件，只把 solve 的函数体（文档字符串之后）换成 body。"""
    source = (BY_NUMBER[number].folder / "solution.py").read_text(encoding="utf-8")
    head, rest = source.split("def solve(", 1)
    doc_end = rest.index('"""', rest.index('"""') + 3) + 3
    tail = rest[rest.index('\n\n\nif __name__'):]
    return head + "def solve(" + rest[:doc_end] + "\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + tail


def verdict(number, body, tmp_path):
    path = tmp_path / "wrong.py"
    path.write_text(with_body(number, body), encoding="utf-8")
    return check_file(BY_NUMBER[number], path, Limits(timeout=60))


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
}


@pytest.mark.parametrize("name", WRONG_15)
def test_lesson_15_wrong_solutions_fail(name, tmp_path):
    v = verdict(15, WRONG_15[name], tmp_path)
    assert v.kind in ("wrong", "crashed"), (name, v.kind, v.message)


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


def differential_catches(number, body):
    """不经可见检查，只用 check.py 的随机用例比较：错误答案至少在一个用例上出错或不同。"""
    from poetry_gpt.courseware.grading import compare, lesson_check, reference
    lesson = BY_NUMBER[number]
    cases, expected = reference(lesson, number * 1000 + 7)
    namespace = {}
    exec(with_body(number, body).replace('if __name__ == "__main__":', "if False:"), namespace)
    for args, want in zip(cases, expected):
        args = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        try:
            got = namespace["solve"](*args)
        except Exception:
            return True
        if compare(want, got) is not None:
            return True
    return False


ONLY_VISIBLE = {"原地减最大值（改了输入）", "直接调用 F.cross_entropy"}


@pytest.mark.parametrize("name", sorted(set(WRONG_15) - ONLY_VISIBLE))
def test_lesson_15_random_cases_alone_catch_wrong_solutions(name):
    assert differential_catches(15, WRONG_15[name]), name
