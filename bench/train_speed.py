"""训练一步有多快：本项目的训练步 vs 朴素的 GPT-2 式参考步，以及离这台机器矩阵乘法上限有多远。

同一个进程、同样的宽度、层数、头数与汉字表，同样来自 train 的真实诗：

(a) 本项目：每条样本是一首诗，只补齐到本批最长的一条；只在正文与 <eos> 的位置、分块算输出层与交叉熵
    （poetry_gpt/loss.py）；注意力用 scaled_dot_product_attention；精度按预设（base 是 auto：这台 CPU 的
    bf16 矩阵乘法明显更快时用 bf16 自动混合精度）；融合的 AdamW（fused=True）。与 ./poet train 的训练步相同。
(b) 参考（bench/gpt2_reference.py，time_to_quality.py 也用它）：把所有诗的正文首尾相接，切成固定的 64 字一段；
    每个位置都算 logits 和损失；逐步写出的注意力；fp32；不融合的 AdamW（foreach=False）。

两者都按“每秒处理多少语料字”（计入损失的目标字数）报告，并给出比值。同一次运行里还测一个大的
fp32 矩阵乘法能到多少 GFLOP/s，把每种训练步的实际 GFLOP/s 表示成它的几成。
两种步交替计时，机器忙闲的波动对两边一样。

    .venv/bin/python bench/train_speed.py [--preset base] [--precision auto] [--batch-size 128] [--rounds 4] [--steps 4] [--threads 2] [--json]

与 ./poet train 一样可以换掉预设的尺寸与优化器（--width 224 --n-layers 6 --n-heads 7 --optimizer muon）：
参考步跟着同宽、同层数，仍用 AdamW（它代表朴素的做法）。

最小的一次（测试用：只看它跑得通、JSON 自洽，不看快慢）：--preset tiny --rounds 1 --steps 1 --batch-size 8
--poems 200 --matmul-size 256。
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace

import torch

# bench/ 里共用的参考训练（以脚本运行时，脚本所在的 bench/ 在 sys.path 上）
from gpt2_reference import BLOCK, body_stream, reference_batch, reference_model, reference_optimizer, reference_step

from courseware.cli.model_cmds import SIZE_OPTIONS
from courseware.cli.parser import ChineseParser, positive_int
from poetry_gpt.batches import batch_indices, encode_split
from poetry_gpt.data import default_tokenizer, load_poems, make_batch
from poetry_gpt.devices import resolve_precision
from poetry_gpt.loss import scored_loss
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.settings import OPTIMIZERS, PRECISIONS
from poetry_gpt.train import make_optimizer
from poetry_gpt.train_config import PRESETS


def matmul_gflops(n: int = 2048, dtype=torch.float32, repeat: int = 5) -> float:
    """一个 n×n 矩阵乘法的 GFLOP/s（2n³ 次浮点运算，取 repeat 次里最快的一次）。"""
    a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
    a @ b
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - started)
    return 2 * n**3 / best / 1e9


def step_flops(config: ModelConfig, batch: int, length: int, logit_positions: int) -> float:
    """一步（前向 + 反向 ≈ 3 × 前向）实际做的矩阵乘法运算量：Block 里的线性层 6·P·(B·T)，
    注意力的两次 T×T 乘法每层 12·B·T²·C，输出层 6·C·V·(算 logits 的位置数)。补齐的格子也算进去。"""
    C, L, V = config.width, config.n_layers, config.vocab_size
    block_params = L * 12 * C * C
    return 6 * block_params * batch * length + 12 * L * batch * length**2 * C + 6 * C * V * logit_positions


def main() -> int:
    parser = ChineseParser(description="训练步速度：本项目 vs GPT-2 式参考")
    parser.add_argument("--preset", default="base", choices=tuple(PRESETS), help="模型尺寸的预设（默认 base）")
    parser.add_argument("--precision", choices=PRECISIONS, help="本项目用的精度（默认按预设）")
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        metavar="行数",
        help="每步几行（本项目是几首诗，参考是几段 64 字；默认按预设）",
    )
    parser.add_argument("--rounds", type=positive_int, default=4, metavar="轮数", help="交替计时几轮")
    parser.add_argument("--steps", type=positive_int, default=4, metavar="步数", help="每轮每种各计时几步")
    parser.add_argument("--threads", type=positive_int, default=2, metavar="线程数", help="计算线程数（默认 2）")
    parser.add_argument(
        "--poems", type=positive_int, default=20000, metavar="首数", help="取 train 的前几首诗来组批（默认 20000）"
    )
    parser.add_argument(
        "--matmul-size",
        type=positive_int,
        default=2048,
        metavar="n",
        help="量矩阵乘法上限用的 n×n 矩阵（默认 2048）",
    )
    parser.add_argument("--width", type=positive_int, metavar="宽度", help="模型宽度 C（默认按预设）")
    parser.add_argument("--n-layers", type=positive_int, metavar="层数", help="Block 的层数（默认按预设）")
    parser.add_argument("--n-heads", type=positive_int, metavar="头数", help="注意力头数（默认按预设）")
    parser.add_argument("--optimizer", choices=OPTIMIZERS, help="本项目用的优化器（默认按预设）")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(26)

    preset = PRESETS[args.preset]
    sizes = {k: v for k in SIZE_OPTIONS if (v := getattr(args, k)) is not None}  # 与 ./poet train 同样换掉预设里的
    preset = replace(preset, model=preset.model | sizes, optimizer=args.optimizer or preset.optimizer)
    if preset.model["width"] % preset.model["n_heads"]:
        parser.error(f"宽度 {preset.model['width']} 不能被头数 {preset.model['n_heads']} 整除")
    precision = resolve_precision(args.precision or preset.precision, torch.device("cpu"))
    tok = default_tokenizer()
    samples = encode_split("train", tok, args.poems)
    stream = body_stream(load_poems("train", args.poems), tok)  # 同样的这些诗，只要正文与 <eos>，首尾相接
    B = args.batch_size or preset.batch_size

    ours_cfg = ModelConfig(vocab_size=len(tok), **preset.model)
    ours, ref = PoetryGPT(ours_cfg), reference_model(preset, len(tok))
    ref_cfg = ref.config
    ours_opt = make_optimizer(ours, preset)
    ref_opt = reference_optimizer(ref, preset)

    grid = [0, 0]

    def ours_step(i: int) -> tuple[int, float]:
        batch = [samples[j] for j in batch_indices(i, len(samples), B, preset.seed)]
        x, y, mask = make_batch(batch)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
            loss = scored_loss(ours, x, y, mask)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(ours.parameters(), preset.grad_clip)
        ours_opt.step()
        ours_opt.zero_grad(set_to_none=True)
        n = int(mask.sum())
        grid[0] += x.numel()  # 本批的格子数（含条件区与补齐），与其中计分的字数对照
        grid[1] += n
        return n, step_flops(ours_cfg, B, x.shape[1], n)

    def ref_step(i: int) -> tuple[int, float]:
        reference_step(ref, ref_opt, *reference_batch(stream, i, B, preset.seed), preset.grad_clip)
        return B * BLOCK, step_flops(ref_cfg, B, BLOCK, B * BLOCK)

    totals = {"ours": [0, 0.0, 0.0], "reference": [0, 0.0, 0.0]}  # 字数、运算量、秒
    ours_step(0), ref_step(0)  # 预热：第一次调用要分配内存、选算法
    peak = matmul_gflops(args.matmul_size)
    step = 1
    for _ in range(args.rounds):
        for name, fn in (("ours", ours_step), ("reference", ref_step)):
            started = time.perf_counter()
            for _ in range(args.steps):
                chars, flops = fn(step)
                totals[name][0] += chars
                totals[name][1] += flops
                step += 1
            totals[name][2] += time.perf_counter() - started
    peak = max(peak, matmul_gflops(args.matmul_size))  # 前后各测一次取较好的，少受别的进程干扰

    result = {
        "preset": args.preset,
        "threads": args.threads,
        "batch_size": B,
        "model": preset.model,
        "optimizer": preset.optimizer,
        "precision": precision,
        "matmul_fp32_gflops": round(peak, 1),
        "matmul_bf16_gflops": round(matmul_gflops(args.matmul_size, dtype=torch.bfloat16), 1),
    }
    for name, (chars, flops, seconds) in totals.items():
        gflops = flops / seconds / 1e9
        result[name] = {
            "chars_per_s": round(chars / seconds, 1),
            "gflops": round(gflops, 2),
            "fraction_of_matmul": round(gflops / peak, 3),
            "seconds": round(seconds, 2),
        }
    result["ours"]["scored_fraction"] = round(grid[1] / grid[0], 3)
    result["ratio"] = round(result["ours"]["chars_per_s"] / result["reference"]["chars_per_s"], 3)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(
        title=f"训练步速度（预设 {args.preset}，宽 {preset.model['width']}×{preset.model['n_layers']} 层"
        f"×{preset.model['n_heads']} 头，{preset.optimizer}，精度 {precision}，{args.threads} 个线程，"
        f"fp32 矩阵乘法上限 {peak:.1f} GFLOP/s）",
        title_justify="left",
    )
    for h in ("", "语料字/秒", "GFLOP/s", "占 fp32 矩阵乘法上限"):
        t.add_column(h)
    for name, label in (("ours", "本项目"), ("reference", "GPT-2 式参考")):
        r = result[name]
        t.add_row(label, f"{r['chars_per_s']:,.0f}", f"{r['gflops']:.1f}", f"{100 * r['fraction_of_matmul']:.0f}%")
    Console().print(t)
    print(f"比值（本项目 ÷ 参考）：{result['ratio']:.2f}")
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
