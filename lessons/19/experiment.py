"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/19/experiment.py。"""

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from poetry_gpt.bigram import BigramModel
from poetry_gpt.common import ROOT, read_json
from poetry_gpt.data import default_tokenizer, load_poems
from poetry_gpt.labs import line_plot, setup_experiment, show, table
from poetry_gpt.metrics import loss_curves
from poetry_gpt.model import ModelConfig
from poetry_gpt.train import train
from poetry_gpt.train_config import PRESETS

setup_experiment()

tok = default_tokenizer()


def lowest(points):
    """验证损失最低的 (步, 值)；并列时取最早的一次（本课练习的定义）。"""
    return min(points, key=lambda p: p[1])


# 1. 随课程发布的模型自己的曲线：日志就存在 data/model.pt 里
curves = loss_curves()
val512 = load_poems("val", curves["eval_poems"])  # 训练时验证用的那 512 首
bigram = BigramModel.fit(load_poems("train"), tok)
base512 = bigram.cross_entropy(val512)
line_plot(
    {"训练（每步一批）": curves["train"], "验证（512 首）": curves["val"]},
    hlines={"二元基线": base512},
    title="随课程发布的模型：损失（奈特/字）",
    height=16,
)
last = curves["train"][-1][0]  # 一共训练了几步
best = lowest(curves["val"])
every = 1000 * max(1, round(last / 10_000))  # 十来列，终端里放得下
picks = [p for p in curves["val"] if p[0] % every == 0 or p in (curves["val"][0], best, curves["val"][-1])]
table(
    ["步"] + [s for s, _ in picks],
    [["验证"] + [v for _, v in picks]],
    title=f"日志里的验证损失（每 {every} 步，加上第一次、最低的一次和最后一次）",
    digits=3,
)
first_below = next((s for s, v in curves["val"] if v < base512), None)  # 训练得太短的模型可能一次也没低于它
show("第一次验证就低于二元基线的步数", first_below)
show(f"验证损失最低的一步（共 {last} 步）", best)
tail = [l for s, l in curves["train"] if s > last - 200]
show(f"最后 200 步训练损失的平均 / 第 {last} 步的验证损失", [sum(tail) / len(tail), curves["val"][-1][1]], digits=3)

# 2. 同一批 val 诗上比一比（两个数必须来自同一批诗）；模型在 val 全部诗上的数要算近一分钟，
#    这里读记下来的 ./poet eval 的结果（results/eval.json，./poet verify --record 重写它）
recorded = read_json(ROOT / "results" / "eval.json")["val_cross_entropy"]
table(
    ["模型", f"val 里均匀取的 {len(val512)} 首", f"val 全部 {len(load_poems('val'))} 首"],
    [
        ["二元模型（第 07 课，k = 0.03）", base512, bigram.cross_entropy(load_poems("val"))],
        [f"随课程发布的模型（第 {last} 步）", curves["val"][-1][1], recorded],
    ],
    title="交叉熵（奈特/字，正文与 <eos>；模型在 val 全部诗上的数是 ./poet eval 记在 results/eval.json 里的）",
    digits=3,
)
show("模型 ÷ 二元基线（同样的 512 首）", curves["val"][-1][1] / base512, digits=3)

# 3. 只用 16 首诗训练（每步就是这 16 首）：训练损失一直降，验证损失先降后升
work = Path(tempfile.mkdtemp(prefix="lesson19-"))
tiny = PRESETS["tiny"]
steps, every = 48, 4
runs = {}
for dropout in (0.0, 0.3):
    config = replace(
        tiny,
        model=dict(tiny.model, dropout=dropout),
        train_poems=16,
        batch_size=16,
        steps=steps,
        warmup=4,
        eval_every=every,
        eval_poems=32,
    )
    runs[dropout] = loss_curves(train(config, work / f"dropout{dropout}", progress=False).log)
shutil.rmtree(work)
small = runs[0.0]
line_plot(
    {"训练": small["train"], "验证": small["val"]}, title="16 首诗、tiny 尺寸、dropout 0：损失（奈特/字）", height=14
)
for dropout, c in runs.items():
    show(
        f"dropout {dropout:g} 的验证损失（第 {every}、{2 * every}、…、{steps} 步）", [v for _, v in c["val"]], digits=3
    )
rows = []
for dropout, c in runs.items():
    step, val = lowest(c["val"])
    rows.append([f"{dropout:g}", step, val, c["val"][-1][1], sum(l for _, l in c["train"][-8:]) / 8])
table(
    ["dropout", "开始过拟合的一步", "最低验证", f"第 {steps} 步验证", "末 8 步训练"],
    rows,
    title=f"16 首诗上训练 {steps} 步（损失：奈特/字）",
    digits=3,
)
line_plot(
    {"验证 dropout 0": runs[0.0]["val"], "验证 dropout 0.3": runs[0.3]["val"]},
    title="验证损失：dropout 0 与 0.3",
    height=10,
)
show("base 预设的模型设置（没有 dropout 这一项）", PRESETS["base"].model)
show("ModelConfig 的 dropout 默认值", ModelConfig.dropout)
