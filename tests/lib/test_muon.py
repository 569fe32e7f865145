"""Muon（poetry_gpt/muon.py）：正交化保留奇异向量、把奇异值推到 1 附近；一步与 torch.optim.Muon 按 AdamW 的更新幅度换算后相同。
怎样把参数分给 Muon 与 AdamW 见 tests/lib/test_train.py。"""

import torch

from poetry_gpt.muon import Muon, orthogonalize


def test_orthogonalize_keeps_the_singular_vectors_and_brings_the_singular_values_near_one():
    torch.manual_seed(0)
    for shape in ((48, 144), (144, 48)):  # 宽的与高的矩阵
        g = torch.randn(shape) * torch.logspace(-1, 1, shape[1])  # 奇异值跨两个数量级
        q = orthogonalize(g)
        assert q.shape == g.shape and q.dtype == torch.float32
        s = torch.linalg.svdvals(q)
        assert 0.6 < s.min() and s.max() < 1.25
        u, _, vt = torch.linalg.svd(g, full_matrices=False)
        assert torch.nn.functional.cosine_similarity(q.flatten(), (u @ vt).flatten(), dim=0) > 0.95


def test_muon_steps_like_torch_muon_scaled_to_adamw():
    """同一组梯度走三步，与 torch.optim.Muon（match_rms_adamw）只差它在 bfloat16 里算的舍入。"""
    torch.manual_seed(0)
    ours, theirs = torch.nn.Parameter(torch.randn(32, 96)), torch.nn.Parameter(torch.randn(32, 96))
    theirs.data.copy_(ours.data)
    a = Muon([ours], lr=0.02, weight_decay=0.1)
    b = torch.optim.Muon([theirs], lr=0.02, weight_decay=0.1, adjust_lr_fn="match_rms_adamw")
    start = ours.detach().clone()
    for _ in range(3):
        grad = torch.randn(32, 96)
        ours.grad, theirs.grad = grad.clone(), grad.clone()
        a.step()
        b.step()
    moved, gap = (ours - start).norm(), (ours - theirs).norm()
    assert moved > 0.1 and gap < 0.03 * moved
    assert set(a.state[ours]) == {"momentum_buffer"}
