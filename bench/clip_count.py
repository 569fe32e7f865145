"""梯度裁剪有多常用：按一个预设从头训练前 N 步，数梯度总范数超过上限（grad_clip = 1.0）的步数。

第 17 课与 data/MODEL.md 引用它的结果。训练走的就是 ``poetry_gpt.train.train``（取批、学习率、
train_step 里的损失、裁剪、AdamW 一步都不变），只把 ``clip_grad_norm_`` 包一层，记下它返回的裁剪之前的总范数；
存档写在临时目录里，跑完就删。前 100 步都在预热里，学习率与总步数无关。

    .venv/bin/python bench/clip_count.py [--preset base] [--steps 100] [--threads 2] [--json]
"""

from __future__ import annotations

import json
import tempfile
import time

import torch

from courseware.cli.parser import ChineseParser, positive_int
from poetry_gpt.train import train
from poetry_gpt.train_config import PRESETS


def main() -> None:
    parser = ChineseParser(description="梯度裁剪有多常用：前 N 步里总范数超过上限的步数")
    parser.add_argument("--preset", choices=("tiny", "base"), default="base", help="训练预设（默认 base）")
    parser.add_argument("--steps", type=positive_int, default=100, metavar="步数", help="训练前几步（默认 100）")
    parser.add_argument("--threads", type=positive_int, default=2, metavar="线程数", help="计算线程数（默认 2）")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    config = PRESETS[args.preset]
    norms: list[float] = []
    clip = torch.nn.utils.clip_grad_norm_

    def recording(parameters, max_norm, *rest, **options):
        total = clip(parameters, max_norm, *rest, **options)
        norms.append(float(total))
        return total

    torch.nn.utils.clip_grad_norm_ = recording
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="clip-count-") as out:
        train(config, out, stop_at=args.steps, progress=False)
    result = {
        "preset": args.preset,
        "steps": len(norms),
        "grad_clip": config.grad_clip,
        "clipped": sum(n > config.grad_clip for n in norms),
        "norm_at_step_0": round(norms[0], 4),
        "largest": round(max(norms), 4),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(
            f"{args.preset} 预设前 {result['steps']} 步：总范数超过 {config.grad_clip} 而被裁剪的 {result['clipped']} 步；"
            f"第 0 步的总范数 {result['norm_at_step_0']}，最大 {result['largest']}（用时 {result['seconds']} 秒）"
        )


if __name__ == "__main__":
    main()
