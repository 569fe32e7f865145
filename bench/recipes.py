"""长训练之前先选配方：同样的（空闲机器上的）训练时间里，几种配方各训练一次，比较绝句 val 上的交叉熵。

比的是“同样多的 CPU 时间换来多低的验证损失”，可机器忙时墙上时间不作数，所以分两步：

1. ``--time``：在空闲的机器上交替计时每种配方的训练步（丢掉前两步），写进 ``OUT/seconds.json``：每步几秒。
2. ``--run 名字 --minutes M``：把 M 分钟按量出的每步秒数换成步数，用这个总步数训练（学习率日程正好在这里降到底）。
   结果只由步数定，机器忙时跑也一样，只是慢些。训练就是 ``train()``，存档在 ``OUT/名字/``。
3. ``--report``：每种配方的步数、每步秒数、最后的验证损失（512 首 val 绝句）与它在第几步，一张表。

    .venv/bin/python bench/recipes.py --out ~/poet-runs/recipes --time
    .venv/bin/python bench/recipes.py --out ~/poet-runs/recipes --run w192-regulated --minutes 20
    .venv/bin/python bench/recipes.py --out ~/poet-runs/recipes --report

配方都从 ``--preset regulated``（绝句每轮 4 遍加律诗窗口、关键词每步重抽、最后两成步数只用绝句）或 ``base`` 出发，
一次只改一样：宽度与层数、优化器与学习率、绝句的份量、最后的微调。
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import torch

from courseware.cli.parser import ChineseParser, positive_int
from poetry_gpt.batches import TrainingSamples
from poetry_gpt.common import atomic_write_text
from poetry_gpt.data import default_tokenizer
from poetry_gpt.model import ModelConfig
from poetry_gpt.train import build_model, train, train_step
from poetry_gpt.train_config import PRESETS, TrainConfig

REGULATED, BASE = PRESETS["regulated"], PRESETS["base"]


def sized(config: TrainConfig, width: int, n_layers: int, n_heads: int) -> TrainConfig:
    return replace(config, model=config.model | {"width": width, "n_layers": n_layers, "n_heads": n_heads})


RECIPES: dict[str, TrainConfig] = {
    "w128-base": BASE,  # 上一版随课程发布的模型的配方：只有绝句
    "w192-regulated": REGULATED,
    "w192-regulated-muon": replace(REGULATED, optimizer="muon"),
    "w192-regulated-muon-lr6": replace(REGULATED, optimizer="muon", lr=6e-3),
    "w192-regulated-muon-lr6-wsd": replace(REGULATED, optimizer="muon", lr=6e-3, schedule="wsd"),
    "w192-regulated-lr2": replace(REGULATED, lr=2e-3),
    "w192-regulated-lr5": replace(REGULATED, lr=5e-3),
    "w192-regulated-r2": replace(REGULATED, quatrain_repeats=2),
    "w192-regulated-r8": replace(REGULATED, quatrain_repeats=8),
    "w192-regulated-ft0": replace(REGULATED, finetune_share=0.0),
    "w192-regulated-wsd": replace(REGULATED, schedule="wsd"),
    "w160-l8-regulated": sized(REGULATED, 160, 8, 5),
    "w256-l6-regulated": sized(REGULATED, 256, 6, 8),
    "w224-l6-regulated": sized(REGULATED, 224, 6, 7),
    "w224-l6-regulated-muon": replace(sized(REGULATED, 224, 6, 7), optimizer="muon"),
}
"""配方的名字 → 训练设置（总步数由 --minutes 与量出的每步秒数定）。"""


def time_steps(names: list[str], rounds: int, steps: int, threads: int) -> dict[str, float]:
    """交替计时：每轮每种配方走 steps 步，取全部轮的平均每步秒数（第一次调用前各走两步预热）。"""
    torch.set_num_threads(threads)
    tok = default_tokenizer()
    runs = {}
    for name in names:
        config = RECIPES[name]
        model, optimizer = build_model(ModelConfig(vocab_size=len(tok), **config.model), config, torch.device("cpu"))
        samples = TrainingSamples(config, tok)
        for s in range(2):
            train_step(model, optimizer, samples.batch(s, config), config.lr, config.grad_clip)
        runs[name] = (config, model, optimizer, samples)
    seconds = dict.fromkeys(names, 0.0)
    step = 2
    for _ in range(rounds):
        for name, (config, model, optimizer, samples) in runs.items():
            started = time.perf_counter()
            for s in range(step, step + steps):
                train_step(model, optimizer, samples.batch(s, config), config.lr, config.grad_clip)
            seconds[name] += time.perf_counter() - started
        step += steps
    return {name: total / (rounds * steps) for name, total in seconds.items()}


def main() -> int:
    parser = ChineseParser(description="同样的训练时间里比较几种配方（绝句 val 的交叉熵）")
    parser.add_argument("--out", required=True, metavar="文件夹", help="放计时与各次训练的文件夹（放在仓库外面）")
    parser.add_argument("--time", action="store_true", help="在空闲的机器上量每种配方每步几秒")
    parser.add_argument("--run", choices=tuple(RECIPES), metavar="配方", help="训练一种配方")
    parser.add_argument("--minutes", type=float, default=20.0, help="--run 的训练时间（按空闲时的每步秒数换成步数）")
    parser.add_argument("--report", action="store_true", help="印出比较表")
    parser.add_argument("--recipes", default=",".join(RECIPES), help="--time 量哪几种（逗号分开）")
    parser.add_argument("--rounds", type=positive_int, default=3, metavar="轮数")
    parser.add_argument("--steps", type=positive_int, default=5, metavar="步数")
    parser.add_argument("--threads", type=positive_int, default=2, metavar="线程数")
    args = parser.parse_args()
    out = Path(args.out).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    timing = out / "seconds.json"
    if args.time:
        seconds = time_steps(args.recipes.split(","), args.rounds, args.steps, args.threads)
        atomic_write_text(timing, json.dumps(seconds, ensure_ascii=False, indent=1) + "\n")
        for name, s in seconds.items():
            print(f"{name}: 每步 {s:.3f} 秒")
    if args.run:
        torch.set_num_threads(args.threads)
        per_step = json.loads(timing.read_text(encoding="utf-8"))[args.run]
        steps = int(args.minutes * 60 / per_step)
        config = replace(RECIPES[args.run], steps=steps, eval_every=100, sample_every_s=0, precision="fp32")
        started = time.monotonic()
        run = train(config, out / f"{args.run}-{args.minutes:g}m", progress=False)
        vals = [(e["step"], e["val"]) for e in run.log if "val" in e]
        result = {
            "recipe": args.run,
            "minutes": args.minutes,
            "seconds_per_step": per_step,
            "steps": steps,
            "wall_minutes": round((time.monotonic() - started) / 60, 1),
            "vals": vals,
        }
        atomic_write_text(out / f"{args.run}-{args.minutes:g}m.json", json.dumps(result, ensure_ascii=False) + "\n")
        print(f"{args.run}：{steps} 步，最后验证 {vals[-1][1]:.3f}，墙上 {result['wall_minutes']} 分钟")
    if args.report:
        print("| 配方 | 分钟（空闲） | 每步秒数 | 步数 | 最后验证 | 最好验证 | 墙上分钟 |")
        print("|---|---|---|---|---|---|---|")
        for path in sorted(out.glob("*m.json")):
            r = json.loads(path.read_text(encoding="utf-8"))
            best = min(v for _, v in r["vals"])
            print(
                f"| {r['recipe']} | {r['minutes']:g} | {r['seconds_per_step']:.3f} | {r['steps']} | "
                f"{r['vals'][-1][1]:.3f} | {best:.3f} | {r['wall_minutes']} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
