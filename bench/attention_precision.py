"""注意力（scaled_dot_product_attention）的前向 + 反向：bf16 与 fp32 各要多久。

训练用 bf16 混合精度时，poetry_gpt/model.py 让注意力这一步仍用 fp32 算；这个脚本给出理由：
在同一个进程里、用训练时的形状（每步 128 首诗、前文 38 个位置、4 个头、每头宽 32），交替计时
(a) bf16 的 q、k、v 直接进 SDPA，(b) 先转成 fp32 再进 SDPA（模型里的写法，含两次转换），并打印比值。

    .venv/bin/python bench/attention_precision.py [--rounds 5] [--threads 2] [--json]
"""

from __future__ import annotations

import json
import sys
import time

import torch
from torch.nn import functional as F

from courseware.cli.parser import ChineseParser, positive_int


def main() -> int:
    parser = ChineseParser(description="注意力的精度：bf16 与 fp32 的 SDPA 前向 + 反向")
    parser.add_argument("--rounds", type=positive_int, default=5, metavar="轮数", help="交替计时几轮，每轮每种 5 次")
    parser.add_argument("--threads", type=positive_int, default=2, metavar="线程数", help="计算线程数（默认 2）")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(26)
    B, H, T, D = 128, 4, 38, 32
    # 与模型里一样，q、k、v 是 [B, T, 3C] 切出来再转置的视图
    qkv = torch.randn(B, T, 3 * H * D, dtype=torch.bfloat16, requires_grad=True)

    def step(as_fp32: bool) -> None:
        q, k, v = (t.view(B, T, H, D).transpose(1, 2) for t in qkv.split(H * D, dim=2))
        if as_fp32:
            q, k, v = q.float(), k.float(), v.float()
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.to(torch.bfloat16).sum().backward()

    seconds = {"bf16": 0.0, "fp32": 0.0}
    step(False), step(True)  # 预热
    for _ in range(args.rounds):
        for name in seconds:
            started = time.perf_counter()
            for _ in range(5):
                step(name == "fp32")
            seconds[name] += time.perf_counter() - started
    calls = 5 * args.rounds
    result = {
        "shape": [B, H, T, D],
        "threads": args.threads,
        "bf16_ms": round(1000 * seconds["bf16"] / calls, 2),
        "fp32_ms": round(1000 * seconds["fp32"] / calls, 2),
    }
    result["bf16_over_fp32"] = round(result["bf16_ms"] / result["fp32_ms"], 2)
    if not args.json:
        print(f"SDPA 前向 + 反向，形状 [B, H, T, C/H] = {result['shape']}，{args.threads} 个线程：")
        print(
            f"  bf16：{result['bf16_ms']:.2f} 毫秒/次；先转 fp32：{result['fp32_ms']:.2f} 毫秒/次；"
            f"bf16 是 fp32 的 {result['bf16_over_fp32']:.1f} 倍时间"
        )
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
