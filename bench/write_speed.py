"""多大的模型还能让 ``./poet write 月`` 在 2 秒内写完（不忙的两核机器上，从 shell 算起）。

写一首诗的时间只看模型的形状，不看它学到了什么，所以这里为每种尺寸建一个随机初始化的模型，像随课程发布的模型那样
存成 fp16（``save_checkpoint(half=True)``，放在临时文件夹里），然后轮流从 shell 运行
``./poet write 月 --seed 26 --checkpoint 存档``，每种取 runs 次里最短的墙上时间（含启动 Python、载入 torch 与模型），
与同一个进程里量的 data/model.pt 比（比值 = 这种尺寸 ÷ 发布的模型），再印出存档的大小（MB，10⁶ 字节）。

    .venv/bin/python bench/write_speed.py [--sizes 192x6,224x6,256x6] [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

from courseware.cli.parser import ChineseParser, positive_int
from poetry_gpt.checkpoint import SHIPPED_MODEL, load_model, save_checkpoint
from poetry_gpt.common import ROOT
from poetry_gpt.data import default_tokenizer
from poetry_gpt.model import PoetryGPT


def shell_seconds(checkpoint: Path) -> float:
    """``./poet write 月 --seed 26 --checkpoint checkpoint`` 从启动到结束的墙上时间（秒）。"""
    started = time.perf_counter()
    subprocess.run(
        [str(ROOT / "poet"), "write", "月", "--seed", "26", "--checkpoint", str(checkpoint)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """``"192x6,224x6"`` → ``[(192, 6), (224, 6)]``（宽度 × 层数；头数取宽度 ÷ 32，所以宽度是 32 的倍数）。

    Raises:
        argparse.ArgumentTypeError: 写法不对（ChineseParser 把它说成中文的用法错误）。
    """
    sizes = []
    for part in text.split(","):
        match = re.fullmatch(r"(\d+)x(\d+)", part.strip())
        if match is None or int(match[1]) % 32 or int(match[1]) == 0 or int(match[2]) == 0:
            raise argparse.ArgumentTypeError(f"尺寸要写成“宽度x层数”、宽度是 32 的正整数倍，如 224x6，收到“{part}”")
        sizes.append((int(match[1]), int(match[2])))
    return sizes


def main() -> int:
    parser = ChineseParser(description="几种尺寸的模型各写一首诗要多久（从 shell 算起）")
    parser.add_argument(
        "--sizes", type=parse_sizes, default="192x6,224x6,256x6", help="宽度x层数，逗号分开（默认 192x6,224x6,256x6）"
    )
    parser.add_argument("--runs", type=positive_int, default=5, metavar="次数", help="每种运行几次，取最短的（默认 5）")
    parser.add_argument("--json", action="store_true", help="以 JSON 输出")
    args = parser.parse_args()
    tok = default_tokenizer()
    shipped, _ = load_model()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        checkpoints = {"发布的模型": (SHIPPED_MODEL, shipped.num_parameters())}
        for width, n_layers in args.sizes:
            torch.manual_seed(0)
            model = PoetryGPT(replace(shipped.config, width=width, n_layers=n_layers, n_heads=width // 32))
            path = Path(tmp) / f"w{width}-l{n_layers}.pt"
            save_checkpoint(path, model, tok, half=True)
            checkpoints[f"宽 {width}、{n_layers} 层"] = (path, model.num_parameters())
        seconds = dict.fromkeys(checkpoints, float("inf"))
        for _ in range(args.runs):  # 轮流量：机器忙闲的变化落在每种尺寸上
            for name, (path, _) in checkpoints.items():
                seconds[name] = min(seconds[name], shell_seconds(path))
        for name, (path, n_params) in checkpoints.items():
            rows.append(
                {
                    "model": name,
                    "parameters": n_params,
                    "megabytes": round(path.stat().st_size / 1e6, 1),
                    "seconds": round(seconds[name], 2),
                    "ratio": round(seconds[name] / seconds["发布的模型"], 2),
                }
            )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    for r in rows:
        print(
            f"{r['model']}：{r['parameters']:,} 个参数，存档 {r['megabytes']} MB，"
            f"./poet write 月 最短 {r['seconds']} 秒（发布的模型的 {r['ratio']} 倍）"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
