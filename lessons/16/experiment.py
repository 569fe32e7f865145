"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/16/experiment.py。"""

from dataclasses import replace

import torch

from poetry_gpt.checkpoint import read_checkpoint
from poetry_gpt.data import default_tokenizer, encode_sample, load_poems, make_batch
from poetry_gpt.labs import line_plot, setup_experiment, show, table
from poetry_gpt.loss import scored_loss
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.time_budget import PLAN_AT, planned_steps
from poetry_gpt.train import learning_rate, make_optimizer
from poetry_gpt.train_config import PRESETS

setup_experiment()

tok = default_tokenizer()
base = PRESETS["base"]  # 课上训练用的预设

# 1. 预热加余弦衰减：第 0 步到第 3000 步
show(
    "base 的设置",
    f"峰值 lr={base.lr}，预热 warmup={base.warmup} 步，共 steps={base.steps} 步，"
    f"最低 lr × min_lr_ratio = {base.lr * base.min_lr_ratio:g}",
)
line_plot(
    {"学习率": [(s, learning_rate(s, base)) for s in range(0, 3001, 20)]},
    width=60,
    height=12,
    title="learning_rate(step)：第 0–3000 步（每 20 步一个点）",
    digits=4,
)
zoom = base.warmup * 6 // 5  # 预热再多一点，看得见拐角
line_plot(
    {"学习率": [(s, learning_rate(s, base)) for s in range(0, zoom + 1)]},
    width=60,
    height=8,
    title=f"放大开头：第 0–{zoom} 步",
    digits=4,
)
w, middle = base.warmup, base.warmup + (base.steps - base.warmup) // 2
marks = [0, 1, w * 5 // 8, w - 2, w - 1, w, w + 1, 3 * w, 5 * w, middle, base.steps - 1, base.steps, 3000]
table(
    ["第几步（从 0 数）", "学习率", "说明"],
    [
        [s, f"{learning_rate(s, base):.6g}", note]
        for s, note in zip(
            marks,
            [
                "第一步：lr/warmup，不是 0",
                "",
                "预热中",
                "",
                "预热的最后一步：到达峰值",
                "余弦开始，进度 0：仍是峰值",
                "",
                "已经在降：峰值没有平台，只是余弦开头很平",
                "",
                "进度 0.5：峰值与最低值的正中间",
                "训练的最后一步",
                "= steps：降到最低值",
                "超过 steps：一直是最低值",
            ],
        )
    ],
    title="几个关键的步",
)

# 2. 随课程发布的模型的日志：它用 --minutes 训练（第 3 部分），总步数在第 8 步排定（一次训练完时之后每次验证完重排一次，
#    分几次训练时不再重排）；日志第 k 条记下的 lr 是 learning_rate(k − 1)，日程的设置取存档里的
state = read_checkpoint("data/model.pt", tok)
saved, log = state["train_config"], state["log"]
every = saved["eval_every"]
final = replace(base, **{k: saved[k] for k in ("lr", "warmup", "min_lr_ratio", "schedule", "steps")})
matches = lambda entries, config: all(e["lr"] == learning_rate(e["step"] - 1, config) for e in entries)


def plan_of(entries):
    """这一段日志用的总步数：从 final.steps 往两边逐个试，第一个让每一条都对得上的就是。"""
    for steps in sorted(range(final.warmup + 1, 2 * final.steps), key=lambda s: abs(s - final.steps)):
        config = replace(final, steps=steps)
        if matches(entries[-1:], config) and matches(entries, config):  # 先只比最后一条，快
            return steps


# 第 s 步（从 0 数）用它之前最近一次排定的总步数：第 PLAN_AT 步排第一次，之后每个 eval_every 的倍数重排
starts = [PLAN_AT] + list(range(every, final.steps, every))
pieces = [[e for e in log if a <= e["step"] - 1 < b] for a, b in zip(starts, starts[1:] + [final.steps])]
plans = [plan_of(piece) for piece in pieces if piece]  # 日志停在排定的步数之前时，后面的段是空的
show("日志条数 / 存档里的 steps（最后一次排定）", [len(log), final.steps])
show(f"按 steps = {final.steps} 算，对得上 learning_rate(k − 1) 的条数", sum(matches([e], final) for e in log))
changes = [p for i, p in enumerate(plans) if i == 0 or p != plans[i - 1]]
show(f"第 {PLAN_AT} 步、之后每 {every} 步排定的总步数（由日志的 lr 反推；相邻相同的只记一次）", changes)
show("每一段按当时排定的 steps 算，每一条都对得上", all(p is not None for p in plans))
show("日志第 1 条与最后一条", [log[0], {k: log[-1][k] for k in ("step", "lr")}])

# 3. --minutes：先量几步的用时，再排定总步数，让余弦在截止时降到底
per_step, minutes = 0.25, 5  # 假设这台机器上 base 每步 0.25 秒
planned = planned_steps(PLAN_AT, per_step, minutes * 60 - PLAN_AT * per_step)
fit = replace(base, steps=planned)
show(f"第 {PLAN_AT} 步时量得每步 {per_step} 秒、还剩 {minutes * 60 - PLAN_AT * per_step:g} 秒，排定的总步数", planned)
table(
    ["日程", f"第 {planned - 1} 步的学习率", "说明"],
    [
        [
            f"按 {base.steps} 步排，{minutes} 分钟时停下",
            f"{learning_rate(planned - 1, base):.6g}",
            "停在高处，没有降下来",
        ],
        [f"--minutes {minutes}：按 {planned} 步排", f"{learning_rate(planned - 1, fit):.6g}", "已降到最低值附近"],
    ],
    title=f"都在第 {planned} 步结束，第 {planned - 1} 步是最后一步",
)

# 4. 哪些参数做权重衰减
model = PoetryGPT(ModelConfig(vocab_size=len(tok), **base.model))
optimizer = make_optimizer(model, base)
names = {id(p): n for n, p in model.named_parameters()}
for group in optimizer.param_groups:
    kinds = sorted({".".join(names[id(p)].split(".")[-2:]) for p in group["params"]})  # 各层同名的合并
    show(
        f"weight_decay={group['weight_decay']} 的一组",
        f"{len(group['params'])} 个张量，{sum(p.numel() for p in group['params'])} 个参数：{'、'.join(kinds)}",
    )
show("AdamW 的 betas", optimizer.param_groups[0]["betas"])
show(
    "characters 在衰减组里（输出层 head 与它共用）",
    any(p is model.characters.weight for p in optimizer.param_groups[0]["params"]),
)

# 5. SGD 与 AdamW：同样的初始化、同样的 20 批
tiny = PRESETS["tiny"]
poems = load_poems("train", 4000)
batches = [make_batch([encode_sample(p, tok) for p in poems[i * 16 : (i + 1) * 16]]) for i in range(20)]


def run(make):
    torch.manual_seed(26)
    net = PoetryGPT(ModelConfig(vocab_size=len(tok), **tiny.model))
    opt = make(net)
    losses = []
    for x, y, mask in batches:
        loss = scored_loss(net, x, y, mask)
        losses.append(loss.item())
        loss.backward()
        opt.step()
        opt.zero_grad()
    return losses


runs = {
    "SGD，lr=0.1": run(lambda n: torch.optim.SGD(n.parameters(), lr=0.1)),
    "SGD，lr=1": run(lambda n: torch.optim.SGD(n.parameters(), lr=1.0)),
    "AdamW，lr=0.01": run(lambda n: make_optimizer(n, replace(tiny, lr=1e-2))),
}
picks = [0, 2, 5, 10, 15, 19]
table(
    ["优化器 \\ 第几步"] + picks,
    [[name] + [losses[s] for s in picks] for name, losses in runs.items()],
    title="tiny 模型（1 层、宽 32），每步 16 首训练诗，各批的损失（奈特/字）",
)

# 6. AdamW 也会动这一步梯度为 0 的行：位置表里没用到的行
five = [p for p in poems if p["form"] == "五言绝句"][:16]
seven = [p for p in poems if p["form"] == "七言绝句"][:16]
long_batch, short_batch = (make_batch([encode_sample(p, tok) for p in group]) for group in (seven, five))
T_long, T_short = long_batch[0].shape[1], short_batch[0].shape[1]
for name, make in [
    ("SGD", lambda n: torch.optim.SGD(n.parameters(), lr=1e-2)),
    ("AdamW", lambda n: make_optimizer(n, replace(tiny, lr=1e-2))),
]:
    torch.manual_seed(26)
    net = PoetryGPT(ModelConfig(vocab_size=len(tok), **tiny.model))
    opt = make(net)
    rows_before = net.positions.weight.detach().clone()
    for x, y, mask in (long_batch, short_batch):  # 先一批七言（长），再一批五言（短）
        before = net.positions.weight.detach().clone()
        scored_loss(net, x, y, mask).backward()
        zero = int((net.positions.weight.grad.abs().sum(1) == 0).sum())
        opt.step()
        opt.zero_grad()
    moved = lambda rows: bool((net.positions.weight[rows] != before[rows]).any())  # noqa: B023  只在这一轮里用
    show(f"{name}：第二步位置表梯度为 0 的行数", zero)
    show(f"{name}：第 {T_short}–{T_long - 1} 行（第一步用过、第二步没用）第二步动了", moved(slice(T_short, T_long)))
    show(
        f"{name}：第 {T_long}–{tiny.model['context_length'] - 1} 行（两步都没用到）第二步动了",
        moved(slice(T_long, None)),
    )
    if name == "AdamW":
        ratio = (net.positions.weight[T_long:] / rows_before[T_long:]).mean().item()
        show(
            "  这些行两步后是原来的几倍",
            f"{ratio:.6f}（= (1 − lr·weight_decay)² = {(1 - 1e-2 * tiny.weight_decay) ** 2:.6f}）",
        )
