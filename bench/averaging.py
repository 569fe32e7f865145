"""同一次训练的几个存档各自与取平均之后，在 val 全部绝句上的交叉熵（data/MODEL.md 的长训练）。

交叉熵与 ``./poet eval`` 的第一行相同：条件区是诗自己的关键词（``keywords_for``），只算正文与 ``<eos>``，奈特/字。
平均由 ``checkpoint.export_model`` 做（fp16，与发布的模型同一种存法），写在临时目录里，跑完就删。

    .venv/bin/python bench/averaging.py 存档1 存档2 … [--json]
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import torch

from courseware.cli.parser import ChineseParser
from poetry_gpt.checkpoint import CheckpointError, export_model, load_model
from poetry_gpt.data import default_tokenizer, encode_sample, load_poems
from poetry_gpt.loss import mean_cross_entropy


def main() -> None:
    parser = ChineseParser(description="几个存档各自与取平均之后的验证交叉熵（val 全部绝句）")
    parser.add_argument("checkpoints", nargs="+", metavar="存档", help="同一次训练的存档，按步数从早到晚")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    tok = default_tokenizer()
    val = load_poems("val")
    samples = [encode_sample(p, tok) for p in val]
    cpu = torch.device("cpu")

    def cross_entropy(path: str | Path) -> tuple[int, float]:
        model, state = load_model(path, tok)
        return state["step"], round(mean_cross_entropy(model, samples, cpu), 4)

    try:
        rows = [dict(zip(("step", "val_cross_entropy"), cross_entropy(path))) for path in args.checkpoints]
        with tempfile.TemporaryDirectory() as tmp:
            export_model(args.checkpoints, Path(tmp) / "averaged.pt")
            _, averaged = cross_entropy(Path(tmp) / "averaged.pt")
    except CheckpointError as e:  # 读不了的存档、尺寸不同的几个存档：说一句中文，退出码 1
        parser.error(str(e))
    result = {"val_poems": len(val), "checkpoints": rows, "averaged": averaged}
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return
    for row in rows:
        print(f"第 {row['step']} 步：{row['val_cross_entropy']:.4f} 奈特/字")
    print(f"{len(rows)} 个存档的平均：{averaged:.4f} 奈特/字（val 全部 {len(val)} 首）")


if __name__ == "__main__":
    main()
