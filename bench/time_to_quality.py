"""同样的训练时间，谁学得更好：本项目 vs nanoGPT 式参考，在同一批 val 诗上比交叉熵（奈特/字）。

同一个进程里先后训练两个模型，各训练 ``--minutes`` 分钟；同一个预设（宽度、层数、头数、每步行数、峰值学习率、
预热步数、权重衰减、梯度裁剪）、同一个随机种子、同样的线程数与精度（默认 fp32）：

(a) 本项目：``./poet train --minutes N`` 的训练（poetry_gpt.train.train，设备 CPU，不写示例诗），只多设一个
    keyword_dropout（./poet train 没有这个选项）：
    每条样本是一首诗（带 1–3 个关键词；``--keyword-dropout`` 那一份不带，默认一成，见 TrainConfig.keyword_dropout），
    只在正文与 <eos> 上算损失，融合的 AdamW；
    用前几步量出的每步用时排定总步数，学习率的预热加余弦衰减在截止时刻降到底，之后每次验证完再排一次。
    它的用时里包括 train() 自己的准备数据（约几秒）、定期验证与存档，与真实训练一样。
(b) 参考（bench/gpt2_reference.py，与 bench/train_speed.py 共用）：诗的正文与 <eos> 首尾相接切成 64 字一段，
    每个位置都计分；逐步写出的注意力、整块 logits、不融合的 AdamW（betas 与衰减分组同上）。
    学习率用同一个函数 learning_rate，由同一个 poetry_gpt.time_budget.MinutesPlanner（第 PLAN_SKIP–PLAN_AT 步
    量用时，每 eval_every 步重排）排到截止时刻结束；它不做中途验证。

计分（同一个指标、同一批字）：val 里等距取的 ``--val-poems`` 首（与 ``./poet train`` 验证用的是同一个子集），
每首计分的字是正文的每个字与标点，再加最后的 <eos>（一首七言 32 + 1 个，五言 24 + 1 个），三方完全相同：

- 本项目读 ``<bos> <体裁> <sep>``，关键词区空着（encode_sample(..., keywords=())），再逐字读正文；
  计分与它的验证损失（loss.mean_cross_entropy，只算正文与 <eos>）完全相同。空着的关键词区它在训练时见过
  （--keyword-dropout 0.1）；给 0 时（随课程发布的模型就是这样训练的）它没见过，分数会差很多。
- 参考读 ``<eos>``（它训练时一首诗前面就是上一首的 <eos>），再逐字读正文；看不到前一首诗。
- 二元基线（第 07 课，poetry_gpt/bigram.py，在全部 train 上计数，k = 0.03）：只看前一个编号，
  第一个字的前一个是 <sep>（bigram.scored_pairs）。

报告每个模型的平均交叉熵（奈特/字，按字数平均）与它除以二元基线的比值；越低越好。

    .venv/bin/python bench/time_to_quality.py --minutes 3 [--preset base] [--keyword-dropout 0.1] [--val-poems 512] [--threads 2] [--precision fp32] [--json]
"""

from __future__ import annotations

import json
import math
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

# bench/ 里共用的参考训练（以脚本运行时，脚本所在的 bench/ 在 sys.path 上）
from gpt2_reference import BLOCK, body_stream, reference_batch, reference_model, reference_optimizer, reference_step

from courseware.cli.parser import ChineseParser, Number, minutes, positive_int, seed
from poetry_gpt.batches import batch_indices
from poetry_gpt.bigram import BigramModel, scored_pairs
from poetry_gpt.checkpoint import load_model
from poetry_gpt.data import EOS, PAD, Tokenizer, default_tokenizer, encode_sample, load_poems, loss_mask_for
from poetry_gpt.devices import fast_bf16
from poetry_gpt.loss import mean_cross_entropy
from poetry_gpt.model import IGNORE_INDEX, PoetryGPT
from poetry_gpt.time_budget import MinutesPlanner
from poetry_gpt.train import learning_rate, train
from poetry_gpt.train_config import PRESETS, TrainConfig


def cpu_name() -> str:
    """这台机器的 CPU 型号（Linux 上 /proc/cpuinfo 的 model name，否则 platform 给的），再加指令集架构，
    以及有没有让 bf16 矩阵乘法快几倍的 AMX（poetry_gpt.devices.fast_bf16）。"""
    name = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    amx = "有 AMX" if fast_bf16(torch.device("cpu")) else "无 AMX"
    return f"{name or platform.processor() or '未知型号'}（{platform.machine()}，{amx}）"


# ---------- 训练 ----------


def train_ours(config: TrainConfig, budget: float, tokenizer: Tokenizer, progress: bool) -> tuple[PoetryGPT, dict]:
    """用 poetry_gpt.train.train 在 CPU 上训练 budget 分钟（临时目录里存档，训完读回权重）。

    Returns:
        (模型, 信息)：信息含 steps（走了几步）、planned_steps（最后排定的总步数）、
        train_chars（计入损失的训练字数：每首诗正文的字与标点加 <eos>）、seconds（整个 train() 调用的秒数）。

    Raises:
        KeyboardInterrupt: 训练中按了 Ctrl-C（train() 存好档后返回 interrupted）。
    """
    with tempfile.TemporaryDirectory() as out:
        started = time.monotonic()
        run = train(config, out, minutes=budget, device="cpu", tokenizer=tokenizer, progress=progress)
        if run.interrupted:  # train() 接住了 Ctrl-C：比较就不做了
            raise KeyboardInterrupt
        seconds = time.monotonic() - started
        model, _ = load_model(run.checkpoint, tokenizer)
    # 每步取的是哪几首诗只由步数决定（batch_indices），事后数得出每步计分的字数
    scored = torch.tensor([len(p["text"]) + 1 for p in load_poems("train", config.train_poems)])
    chars = sum(
        int(scored[batch_indices(s, len(scored), config.batch_size, config.seed)].sum()) for s in range(run.step)
    )
    return model, {"steps": run.step, "planned_steps": run.total, "train_chars": chars, "seconds": round(seconds, 1)}


def train_reference(config: TrainConfig, budget: float, tokenizer: Tokenizer, say=print) -> tuple[PoetryGPT, dict]:
    """nanoGPT 式参考训练 budget 分钟，学习率的日程与 train() 用同样的办法排到截止时刻。

    say：每 eval_every 步报告一行进度的函数（``--json`` 时什么也不做）。

    Returns:
        (模型, 信息)：键与 :func:`train_ours` 相同；seconds 含准备数据（把诗接成一长串）。
    """
    started = time.monotonic()
    stream = body_stream(load_poems("train", config.train_poems), tokenizer)
    torch.manual_seed(config.seed)  # 与 train() 一样在建模型前设种子：base 预设下两边的初始权重相同
    model = reference_model(config, len(tokenizer))
    optimizer = reference_optimizer(model, config)
    model.train()
    loop_started = time.monotonic()
    planner = MinutesPlanner(budget, loop_started, config.eval_every)  # 与 train() 排日程的是同一个
    step = 0
    while step < config.steps:
        if (plan := planner.replan(step, time.monotonic())) is not None:
            config = replace(config, steps=plan[1])
        lr = learning_rate(step, config)
        for group in optimizer.param_groups:
            group["lr"] = lr
        x, y = reference_batch(stream, step, config.batch_size, config.seed)
        loss = reference_step(model, optimizer, x, y, config.grad_clip, config.precision)
        step += 1
        if step % config.eval_every == 0:
            say(
                f"参考：第 {step}/{config.steps} 步，损失 {loss:.3f}，学习率 {lr:.2e}，"
                f"已用 {(time.monotonic() - loop_started) / 60:.1f} 分钟"
            )
    return model.eval(), {
        "steps": step,
        "planned_steps": config.steps,
        "train_chars": step * config.batch_size * BLOCK,
        "seconds": round(time.monotonic() - started, 1),
    }


# ---------- 计分 ----------


def score_ours(model: PoetryGPT, poems, tokenizer: Tokenizer) -> tuple[float, int]:
    """本项目在 poems 上的平均交叉熵（奈特/字）与计分的字数：样本 ``<bos> <体裁> <sep> 正文 <eos>``，
    关键词区空着；计分与训练时的验证损失相同（poetry_gpt.loss.mean_cross_entropy，fp32）。"""
    samples = [encode_sample(p, tokenizer, keywords=()) for p in poems]
    return mean_cross_entropy(model, samples), sum(sum(loss_mask_for(s)) for s in samples)


@torch.no_grad()
def score_reference(model: PoetryGPT, poems, tokenizer: Tokenizer, batch_size: int = 128) -> tuple[float, int]:
    """参考在 poems 上的平均交叉熵（奈特/字）与计分的字数：每首单独读 ``<eos> 正文``，
    预测 ``正文 <eos>``（[B, T] 补齐到本批最长，补齐的目标不计分），fp32。"""
    total, count = 0.0, 0
    for i in range(0, len(poems), batch_size):
        seqs = [[EOS] + tokenizer.encode(p["text"]) + [EOS] for p in poems[i : i + batch_size]]
        T = max(len(s) for s in seqs) - 1
        x = torch.full((len(seqs), T), PAD, dtype=torch.long)
        y = torch.full((len(seqs), T), IGNORE_INDEX, dtype=torch.long)
        for b, s in enumerate(seqs):
            x[b, : len(s) - 1] = torch.tensor(s[:-1])
            y[b, : len(s) - 1] = torch.tensor(s[1:])
        _, loss = model(x, y)
        n = int((y != IGNORE_INDEX).sum())
        total += float(loss) * n
        count += n
    return total / count, count


def score_bigram(poems, tokenizer: Tokenizer) -> tuple[float, int, dict]:
    """二元基线（在全部 train 上计数）在 poems 上的平均交叉熵（奈特/字）与计分的字数，以及它的“训练”信息。"""
    started = time.monotonic()
    train_poems = load_poems("train")
    bigram = BigramModel.fit(train_poems, tokenizer)
    info = {
        "train_chars": sum(len(p["text"]) + 1 for p in train_poems),
        "seconds": round(time.monotonic() - started, 1),
    }
    prev, target = scored_pairs(poems, tokenizer)
    return bigram.pairs_cross_entropy(prev, target), len(prev), info


# ---------- 主程序 ----------


def main() -> int:
    parser = ChineseParser(description="同样的训练时间谁学得更好：本项目 vs nanoGPT 式参考，在同一批 val 诗上比交叉熵")
    parser.add_argument(
        "--minutes",
        type=minutes,
        default=3.0,
        metavar="分钟",
        help="每个模型训练几分钟（默认 3；两个模型先后训练，总用时约两倍）",
    )
    parser.add_argument(
        "--preset", default="base", choices=tuple(PRESETS), help="模型尺寸与训练设置的预设（默认 base）"
    )
    parser.add_argument(
        "--keyword-dropout",
        type=Number(float, 0, 1),
        default=0.1,
        metavar="比例",
        help="本项目训练时不带关键词的诗的比例（默认 0.1；计分时两边都不给关键词）",
    )
    parser.add_argument(
        "--val-poems",
        type=positive_int,
        default=512,
        metavar="首数",
        help="在 val 里等距取多少首来计分（默认 512，与 ./poet train 的验证相同）",
    )
    parser.add_argument(
        "--precision", default="fp32", choices=("fp32", "bf16"), help="两个模型训练时的精度（默认 fp32；计分总用 fp32）"
    )
    parser.add_argument("--threads", type=positive_int, default=2, metavar="线程数", help="计算线程数（默认 2）")
    parser.add_argument("--seed", type=seed, metavar="种子", help="随机种子（默认用预设的）")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from rich.console import Console

    console = Console(highlight=False)
    say = (lambda text: None) if args.json else console.print
    preset = PRESETS[args.preset]
    # 两边读同样的绝句：本项目这边不加律诗窗口、关键词用固定的 TF-IDF（keyword_dropout 才起作用）
    config = replace(
        preset,
        precision=args.precision,
        sample_every_s=0,
        keyword_dropout=args.keyword_dropout,
        seed=preset.seed if args.seed is None else args.seed,
        fresh_keywords=False,
        regulated=False,
    )
    tok = default_tokenizer()
    val = load_poems("val", args.val_poems)
    cpu = cpu_name()

    say(
        f"CPU：{cpu}，{args.threads} 个线程，精度 {args.precision}；先训练本项目的模型 {args.minutes:g} 分钟，"
        f"再训练参考 {args.minutes:g} 分钟"
    )
    try:
        ours, ours_info = train_ours(config, args.minutes, tok, progress=not args.json)
        say(f"本项目：{ours_info['steps']} 步，用时 {ours_info['seconds']:.0f} 秒；接着训练参考")
        ref, ref_info = train_reference(config, args.minutes, tok, say)
    except KeyboardInterrupt:
        print("已中断，没有比较。", file=sys.stderr)
        return 130
    say(f"参考：{ref_info['steps']} 步，用时 {ref_info['seconds']:.0f} 秒；在 {len(val)} 首 val 诗上计分")

    bigram_nats, bigram_count, bigram_info = score_bigram(val, tok)
    result = {
        "minutes": args.minutes,
        "preset": args.preset,
        "model": config.model,
        "batch_size": config.batch_size,
        "keyword_dropout": config.keyword_dropout,
        "precision": args.precision,
        "threads": args.threads,
        "seed": config.seed,
        "cpu": cpu,
        "val_poems": len(val),
        "vocab_size": len(tok),
        "uniform": round(math.log(len(tok)), 4),
    }
    for name, (nats, count), info in (
        ("ours", score_ours(ours, val, tok), ours_info),
        ("reference", score_reference(ref, val, tok), ref_info),
        ("bigram", (bigram_nats, bigram_count), bigram_info),
    ):
        result[name] = {
            **info,
            "val_nats_per_char": round(nats, 4),
            "scored_chars": count,
            "ratio_to_bigram": round(nats / bigram_nats, 4),
        }
    result["ours_below_reference"] = result["ours"]["val_nats_per_char"] < result["reference"]["val_nats_per_char"]
    result["ours_below_bigram"] = result["ours"]["val_nats_per_char"] < result["bigram"]["val_nats_per_char"]
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0

    from rich.table import Table

    t = Table(
        title=f"各训练 {args.minutes:g} 分钟（预设 {args.preset}，本项目 keyword_dropout {config.keyword_dropout:g}，精度 {args.precision}，{args.threads} 个线程，"
        f"CPU：{cpu}）",
        title_justify="left",
    )
    for h in ("模型", "训练步数", "语料字数", "用时", "val 奈特/字", "÷ 二元基线"):
        t.add_column(h, justify="left" if h == "模型" else "right")
    for name, label in (("ours", "本项目"), ("reference", "nanoGPT 式参考"), ("bigram", "二元基线")):
        r = result[name]
        t.add_row(
            label,
            f"{r['steps']:,}" if "steps" in r else "—",
            f"{r['train_chars']:,}",
            f"{r['seconds']:.0f} 秒",
            f"{r['val_nats_per_char']:.3f}",
            f"{r['ratio_to_bigram']:.3f}",
        )
    console.print(t)
    console.print(
        f"计分：val 里等距取的 {len(val)} 首，共 {result['ours']['scored_chars']:,} 个字（正文的字与标点，"
        f"每首再加 <eos>），三方相同。本项目读 <bos> <体裁> <sep>（不给关键词），参考读 <eos>，"
        f"二元基线只看前一个编号。越低越好；均匀猜测是 ln {len(tok)} = {result['uniform']:.3f}。"
    )
    console.print(
        f"本项目{'低于' if result['ours_below_reference'] else '没有低于'}参考，"
        f"{'低于' if result['ours_below_bigram'] else '没有低于'}二元基线。"
    )
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
