"""一批写 N 份草稿比逐份写 N 次快多少，和 ./poet write 月 --drafts N 从命令行算起要多久。

同一个进程里，对 --prompts 个常用字（metrics.common_keywords，体裁按种子抽，与 ./poet write 相同），
先用 ``generate.write_drafts`` 一批写 N 份（每步一次前向，批大小 N），再用 ``write_one`` 按同样的种子逐份写 N 次，
报两边的总秒数与比值（批 ÷ 逐份，越小越好），并核对两边写出的诗一字不差。然后在子进程里运行
``./poet write 月 --seed 26 --drafts N`` 与 ``--drafts 1``，报从命令行算起的墙上时间（含启动 Python、载入 torch
与模型）：要求 ≤ 2 秒（不忙的两核机器）。一个计算线程，与 ./poet write 相同。

    .venv/bin/python bench/drafts.py [--drafts 8] [--prompts 10] [--runs 3] [--json]
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import torch

from courseware.cli.parser import ChineseParser, Number, positive_int
from poetry_gpt.checkpoint import load_model
from poetry_gpt.common import ROOT
from poetry_gpt.data import default_tokenizer
from poetry_gpt.generate import write_drafts, write_one
from poetry_gpt.metrics import common_keywords
from poetry_gpt.settings import MAX_DRAFTS


def shell_seconds(drafts: int, runs: int) -> float:
    """./poet write 月 --seed 26 --drafts N 从启动到结束的墙上时间（秒），runs 次里最短的一次。"""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [str(ROOT / "poet"), "write", "月", "--seed", "26", "--drafts", str(drafts)],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = ChineseParser(description="一批写 N 份草稿 ÷ 逐份写 N 次的用时，与 ./poet write 从命令行算起的用时")
    parser.add_argument("--drafts", type=Number(int, 2, MAX_DRAFTS), default=8, metavar="份数", help="N（默认 8）")
    parser.add_argument("--prompts", type=positive_int, default=10, metavar="个数", help="几个常用字（默认 10）")
    parser.add_argument(
        "--runs", type=positive_int, default=3, metavar="次数", help="命令行计时取几次里最短的（默认 3）"
    )
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    torch.set_num_threads(1)
    tok = default_tokenizer()
    model, _ = load_model()
    write_drafts(model, tok, "月", drafts=args.drafts)  # 预热：第一次调用要建汉字表、平水韵表的缓存

    batched = single = 0.0
    same = True
    for i, kw in enumerate(common_keywords(args.prompts)):
        started = time.perf_counter()
        batch = write_drafts(model, tok, kw, drafts=args.drafts, seed=26 + i)
        batched += time.perf_counter() - started
        started = time.perf_counter()
        singles = [write_one(model, tok, kw, seed=p.seed) for p in batch]
        single += time.perf_counter() - started
        same &= [p.text for p in batch] == [p.text for p in singles]
    result = {
        "drafts": args.drafts,
        "prompts": args.prompts,
        "batched_s": round(batched, 3),
        "one_by_one_s": round(single, 3),
        "ratio": round(batched / single, 3),
        "same_poems": same,
        "shell_write_s": round(shell_seconds(args.drafts, args.runs), 3),
        "shell_write_one_draft_s": round(shell_seconds(1, args.runs), 3),
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    n = args.drafts
    print(
        f"{args.prompts} 个提示，每个 {n} 份草稿：一批写 {result['batched_s']} 秒，逐份写 {result['one_by_one_s']} 秒，"
        f"批 ÷ 逐份 = {result['ratio']}；两边写出的诗{'一字不差' if same else '有不同！'}"
    )
    print(
        f"./poet write 月 --drafts {n} 从命令行算起 {result['shell_write_s']} 秒"
        f"（--drafts 1：{result['shell_write_one_draft_s']} 秒；{args.runs} 次里最短的，含启动 Python、载入 torch 与模型）"
    )
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
