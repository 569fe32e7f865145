"""第 16 课补全练习：亲手走一步 AdamW，权重衰减只落在矩阵上。修改 solve，保持下方检查不变。"""

import math

import torch

torch.set_num_threads(2)
torch.manual_seed(26)

BETAS = (0.9, 0.95)  # 本课程的 beta1、beta2（train.make_optimizer）
EPS = 1e-8  # 分母里防止除以 0 的 ε（torch.optim.AdamW 的默认值）


def solve(params, grads, m, v, step, lr, weight_decay):
    """AdamW 的一步，与 torch.optim.AdamW(按 train.make_optimizer 分组, betas=BETAS, eps=EPS) 的一步相同。

    对每个参数（每个名字）逐个数地做：
    1. 滑动平均：m ← β₁·m + (1 − β₁)·g，v ← β₂·v + (1 − β₂)·g²；
    2. 偏差校正：t = step + 1（做完这一步是第几步，从 1 数），m̂ = m / (1 − β₁ᵗ)，v̂ = v / (1 − β₂ᵗ)；
    3. 解耦的权重衰减，只给矩阵（二维及以上：字向量表、位置表、线性层的 weight）：p ← p × (1 − lr × weight_decay)；
       偏置与 LayerNorm 的参数（一维）不衰减。衰减不混进梯度，也不经过 m、v；
    4. 更新：p ← p − lr × m̂ / (√v̂ + ε)。

    Args:
        params: dict，参数名 → 张量（如 "characters.weight" [V, C]、"blocks.0.norm1.bias" [C]）。
        grads: dict，同样的名字 → 这一步的梯度（同形状；没被查到的行是 0）。
        m, v: dict，同样的名字 → 上一步之后的一阶、二阶滑动平均（第一步之前是全 0）。
        step: 这一步之前已经走了几步（第一步是 0）。
        lr: 这一步的学习率。
        weight_decay: 权重衰减系数。

    Returns:
        (new_params, new_m, new_v)：三个 dict，键与 params 相同，值是新张量。输入都不改动。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 16 检查；卡住时运行 ./poet hint 16 看提示。")


if __name__ == "__main__":
    # 手算的小例子：一个 2×1 的矩阵和一个长 1 的偏置，第一步（m、v 都是 0）
    params = {"head.weight": torch.tensor([[1.0], [2.0]]), "head.bias": torch.tensor([1.0])}
    grads = {"head.weight": torch.tensor([[0.5], [0.0]]), "head.bias": torch.tensor([-2.0])}
    zeros = {name: torch.zeros_like(p) for name, p in params.items()}
    kept = {name: p.clone() for name, p in params.items()}
    new, m, v = solve(params, grads, zeros, zeros, 0, 0.1, 0.5)
    assert set(new) == set(params) and set(m) == set(params) and set(v) == set(params), (
        "返回的三个 dict 要有同样的参数名"
    )
    assert all(torch.equal(params[k], kept[k]) for k in params), "不要改动传进来的参数：返回新张量"
    assert torch.allclose(m["head.weight"], torch.tensor([[0.05], [0.0]])) and torch.allclose(
        v["head.bias"], torch.tensor([0.2])
    ), f"第一步：m = 0.1·g、v = 0.05·g²；实际 m = {m['head.weight'].flatten().tolist()}、v = {v['head.bias'].tolist()}"
    # 偏置：一维，不衰减；第一步 m̂/√v̂ = g/|g| = −1（差一个 ε），更新 +lr：1 + 0.1 = 1.1
    assert abs(new["head.bias"].item() - 1.1) < 1e-5, (
        f"偏置不衰减；第一步 m̂ / √v̂ 约为 −1，1 − 0.1 × (−1) = 1.1；实际是 {new['head.bias'].item():.6f}（是不是偏差校正的 t 从 0 数了？）"
    )
    # 矩阵：先乘以 1 − lr × wd = 0.95，再减 lr × (±1)。第 1 行梯度是 0：m̂ = v̂ = 0，只有衰减
    want = torch.tensor([[0.95 - 0.1], [1.9]])
    assert torch.allclose(new["head.weight"], want, atol=1e-5), (
        f"矩阵先衰减：[1, 2] × 0.95 = [0.95, 1.9]，第 0 行再减 lr × 1；梯度为 0 的第 1 行也被衰减成 1.9。"
        f"应为 {want.flatten().tolist()}，实际是 {new['head.weight'].flatten().tolist()}"
    )
    # 第二步：动量还在，梯度为 0 的格子照样移动；Adam + L2（把衰减加进梯度）在这里就不一样了
    new2, m2, v2 = solve(new, {k: torch.zeros_like(g) for k, g in grads.items()}, m, v, 1, 0.1, 0.5)
    b1, b2 = BETAS
    m_hat, v_hat = b1 * 0.05 / (1 - b1**2), b2 * 0.0125 / (1 - b2**2)
    want = 0.85 * 0.95 - 0.1 * m_hat / (math.sqrt(v_hat) + EPS)
    assert abs(new2["head.weight"][0, 0].item() - want) < 1e-5, (
        f"第二步梯度全是 0：m、v 衰减后 m̂ = {m_hat:.4f}、√v̂ = {math.sqrt(v_hat):.4f}，参数仍要移动："
        f"应为 {want:.6f}，实际是 {new2['head.weight'][0, 0].item():.6f}"
    )
    print("本课补全练习通过。")
