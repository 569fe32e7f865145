"""微调成一位诗人（``./poet train --author``，第 26 课）：对每位诗人照 ./poet train 的设置微调随课程发布的模型，
记下用时、步数，以及微调前后的验证交叉熵（evaluation.finetune_report：这位诗人留在 val 里的诗，val 全部绝句中等距取的 512 首）。

    .venv/bin/python bench/finetune.py 杨万里 释印肃 … [--json 文件]

每位诗人的存档写在临时目录里，跑完就删；要留下存档与诗，用 ./poet train --author。用时是训练循环的墙上时间，
随机器与当时的忙闲而变：记录里写着 CPU 的型号与线程数。
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import torch

from courseware.cli.parser import ChineseParser
from courseware.selfcheck.record import cpu_name
from poetry_gpt.checkpoint import SHIPPED_MODEL, load_model, read_checkpoint
from poetry_gpt.common import ROOT, atomic_write_text
from poetry_gpt.data import author_problem, default_tokenizer, load_poems
from poetry_gpt.evaluation import finetune_report
from poetry_gpt.train import train
from poetry_gpt.train_config import finetune_config


def main() -> None:
    parser = ChineseParser(description="微调随课程发布的模型成几位诗人：用时与微调前后的验证交叉熵")
    parser.add_argument("authors", nargs="+", metavar="诗人")
    parser.add_argument("--json", metavar="文件", help="把结果写进这个 JSON 文件（如 results/finetune.json）")
    args = parser.parse_args()
    for author in args.authors:
        if (why := author_problem(author)) is not None:
            parser.error(why)
    tok = default_tokenizer()
    start = str(SHIPPED_MODEL.relative_to(ROOT))
    model_config = read_checkpoint(start, tok)["model_config"]
    shipped, _ = load_model(start, tok)
    rows = {}
    for author in args.authors:
        train_poems = len(load_poems("train", author=author))
        config = finetune_config(model_config, start, author, train_poems)
        with tempfile.TemporaryDirectory() as tmp:
            began = time.monotonic()
            run = train(config, tmp, progress=False, tokenizer=tok)
            seconds = time.monotonic() - began
            tuned, _ = load_model(run.checkpoint, tok)
        report = finetune_report(shipped, tuned, author, tok)
        rows[author] = {
            "train_poems": train_poems,
            "val_poems": len(load_poems("val", author=author)),
            "steps": run.step,
            "seconds": round(seconds, 1),
            "author_before": report["author"][0],
            "author_after": report["author"][1],
            "general_before": report["general"][0],
            "general_after": report["general"][1],
            "author_change": round(report["author"][1] - report["author"][0], 4),
            "general_change": round(report["general"][1] - report["general"][0], 4),
        }
        r = rows[author]
        print(
            f"{author}：train {train_poems} 首，{run.step} 步，{seconds:.0f} 秒；"
            f"他的 val {r['val_poems']} 首 {r['author_before']:.3f} → {r['author_after']:.3f}"
            f"（{r['author_change']:+.3f}），"
            f"全部绝句 {r['general_before']:.3f} → {r['general_after']:.3f}",
            flush=True,
        )
    result = {"cpu": cpu_name(), "threads": torch.get_num_threads(), "lr": config.lr, "authors": rows}
    if args.json:
        atomic_write_text(Path(args.json), json.dumps(result, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
