"""模型的命令：训练（train）、写诗（write）、评估（eval）。都只在需要时才导入 torch，./poet 其余命令启动得快。"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from poetry_gpt.common import ROOT
from poetry_gpt.settings import (
    DEVICES,
    DRAFTS,
    EVAL_PROMPTS,
    MAX_DRAFTS,
    OPTIMIZERS,
    PLAIN,
    PRECISIONS,
    PRESET_NAMES,
    SCHEDULES,
    SCORE,
    SCORES,
    TEMPERATURE,
    TONE_MODES,
    TOP_K,
    TOP_P,
    VERSE,
    Rules,
)

from ..messages import safe_text
from . import display, tables
from .display import console
from .parser import CliError, Number, minutes, positive_int, seed, temperature, top_k, top_p

MAX_POEMS = 100
"""./poet write -n 的上限（一次写太多要等很久）。"""
MAX_PROMPT = 40
"""关键词、藏头字原文（含空白）的长度上限：要的是 1–4 个字，再长一定是贴错了东西，消息里只回显开头与结尾。"""


def refused(error: Exception, path: str | None) -> CliError:
    """存档或输入不能用：把消息交给 main 打印。学习者给的路径很长时，消息里只留它的开头与结尾。"""
    message = str(error)
    if path and len(path) > 80:
        for form in (path, str(Path(path))):  # 消息里可能是规整过的路径（去掉了末尾的 /）
            message = message.replace(form, safe_text(form, 80, one_line=True, keep_end=True))
    return CliError(message)


SIZE_OPTIONS = ("width", "n_layers", "n_heads")
"""./poet train 可以换掉的模型尺寸：ModelConfig 里的同名字段。"""
RECIPE_OPTIONS = ("lr", "schedule", "optimizer")
"""./poet train 可以换掉的训练设置：TrainConfig 里的同名字段。续训照存档里的走，所以只在从头训练时能给。"""


def _finetune(args, sizes: dict):
    """``--author``（与 ``--from``）要的微调设置（train_config.finetune_config，第 26 课）。

    Raises:
        CliError: 选项不能这样配，诗人不能用（data.author_problem），起点模型读不了。
    """
    from poetry_gpt.checkpoint import SHIPPED_MODEL, CheckpointError, read_checkpoint
    from poetry_gpt.data import author_problem, default_tokenizer, load_poems, to_simplified
    from poetry_gpt.train_config import finetune_config

    if args.author is None:
        raise CliError(
            "--from 是微调的起点，要和 --author 一起给：./poet train --author 杨万里 从随课程发布的模型开始，"
            "再加 --from 你的存档 就从你训练的模型开始"
        )
    if not args.author.strip():
        raise CliError("--author 不能是空的：请给一位诗人的名字，例如 --author 杨万里")
    if args.start_from is not None and not args.start_from.strip():
        raise CliError("--from 不能是空的：请给一个模型文件，或不给 --from（从随课程发布的 data/model.pt 开始）")
    if args.minutes is not None:
        raise CliError(
            "微调按这位诗人的诗数排步数（把他的诗读一遍），不按时间排：读得再多，模型就开始背原诗；要改步数请给 --steps"
        )
    if args.preset is not None or sizes:
        given = "、".join(f"--{k.replace('_', '-')}" for k in ["preset"] * (args.preset is not None) + [*sizes])
        raise CliError(f"微调沿用起点模型的尺寸与微调自己的设置，不能再给 {given}")
    author = to_simplified(args.author.strip())
    if (why := author_problem(author)) is not None:
        raise CliError(why)
    start = str(SHIPPED_MODEL.relative_to(ROOT)) if args.start_from is None else args.start_from
    try:
        state = read_checkpoint(start, default_tokenizer())
    except CheckpointError as e:
        raise refused(e, start) from None
    return finetune_config(state["model_config"], start, author, len(load_poems("train", author=author)))


def cmd_train(args) -> int:
    from poetry_gpt.checkpoint import CHECKPOINT_NAME, CheckpointError
    from poetry_gpt.train import train  # 导入 torch 较慢，只在需要时导入
    from poetry_gpt.train_config import PRESETS

    sizes = {k: v for k in SIZE_OPTIONS if (v := getattr(args, k)) is not None}
    if args.author is not None or args.start_from is not None:
        config = _finetune(args, sizes)
    else:
        args.preset = args.preset or PRESET_NAMES[0]
        config = replace(PRESETS[args.preset], model=PRESETS[args.preset].model | sizes)  # 第 26 课按预算选宽度
    recipe = {k: v for k in RECIPE_OPTIONS if (v := getattr(args, k)) is not None}
    config = replace(config, **recipe)
    if args.precision is not None:
        config = replace(config, precision=args.precision)
    if args.resume and args.force:
        raise CliError("--resume（接着训练）和 --force（从头重来）只能选一个")
    if args.resume and recipe:
        given = "、".join(f"--{k}" for k in recipe)
        raise CliError(f"续训照存档里的学习率、日程与优化器走完，不能再给 {given}；要换，请换一个 --out 从头训练")
    out = Path(args.out or f"runs/{config.author or args.preset}")
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out} 已经是一个文件，不是文件夹；请换一个存档目录")
    if args.resume and not (out / CHECKPOINT_NAME).exists():
        raise CliError(f"{out} 里还没有存档，没有可以接着训练的；去掉 --resume 就从头训练")
    if (out / CHECKPOINT_NAME).exists() and not args.resume and not args.force:
        raise CliError(f"已有存档 {out / CHECKPOINT_NAME}：要接着训练请加 --resume，要从头重来请加 --force")
    try:
        run = train(
            config,
            out,
            resume=args.resume,
            steps=args.steps,
            minutes=args.minutes,
            stop_at=args.stop_at,
            stop_after=args.stop_after,
            device=args.device,
        )
    except (CheckpointError, ValueError) as e:
        raise refused(e, str(out)) from None
    vals = [e["val"] for e in run.log if "val" in e]
    state = "已中断，" if run.interrupted else ""
    console.print(
        f"{state}训练到第 {run.step} 步（共 {run.total} 步），存档在 {run.checkpoint}"
        + (f"；最近一次验证损失 {vals[-1]:.3f} 奈特/字" if vals else "")
    )
    if config.author is not None and run.step >= run.total:
        _finetune_table(config, run.checkpoint)
    if run.step < run.total:
        how = f" --author {config.author} --from {config.start_from}" if config.author else f" --preset {args.preset}"
        size_args = "".join(f" --{k.replace('_', '-')} {v}" for k, v in sizes.items())
        if args.precision is not None:  # 精度不存进存档（换台机器也能接着训练）：给过就照样写上
            size_args += f" --precision {args.precision}"
        again = f" --stop-after {args.stop_after:g}" if args.stop_after is not None else ""
        console.print(f"接着训练：./poet train{how}{size_args} --out {out} --resume{again}", soft_wrap=True)
    console.print(f"用它写诗：./poet write 月 --checkpoint {run.checkpoint}", soft_wrap=True)
    if args.preset == "tiny":
        console.print(
            "tiny 只为几十秒内看到损失下降，写出的诗还不成样子；课上训练的预设是 base，"
            "随课程发布的模型怎样训练的见 data/MODEL.md",
            soft_wrap=True,
        )
    return 130 if run.interrupted else 0


def _finetune_table(config, checkpoint: Path) -> None:
    """微调前后的验证交叉熵（evaluation.finetune_report）：这位诗人的 val 诗降了多少，别人的诗升了多少。"""
    from rich.table import Table

    from poetry_gpt.checkpoint import load_model
    from poetry_gpt.data import default_tokenizer, load_poems
    from poetry_gpt.evaluation import GENERAL_VAL, finetune_report

    tokenizer = default_tokenizer()
    report = finetune_report(
        load_model(config.start_from, tokenizer)[0], load_model(checkpoint, tokenizer)[0], config.author, tokenizer
    )
    table = Table(title="微调前后的验证交叉熵（奈特/字，越低越好）")
    for column in ("诗", "微调前", "微调后", "变化"):
        table.add_column(column, justify="left" if column == "诗" else "right")
    names = {
        "author": f"{config.author}留在 val 里的 {len(load_poems('val', author=config.author))} 首",
        "general": f"val 全部绝句中等距取的 {GENERAL_VAL} 首",
    }
    for name, (before, after) in report.items():
        table.add_row(names[name], f"{before:.3f}", f"{after:.3f}", f"{round(after - before, 3) or 0.0:+.3f}")
    console.print(table)


def cmd_write(args) -> int:
    import torch

    from poetry_gpt.checkpoint import SHIPPED_MODEL, CheckpointError, load_model
    from poetry_gpt.data import LINE_ENDS, default_tokenizer
    from poetry_gpt.generate import GenerationError, iter_poems
    from poetry_gpt.metrics import poem_report
    from poetry_gpt.sampling import SamplingConfig

    # 一次只写一首、矩阵很小，一个线程就够快；多个线程在机器忙时互相等待，反而慢得多
    torch.set_num_threads(1)
    if len(args.keywords) > 1:  # ./poet write 月 花：合成一组关键词，并说出来
        joined = safe_text("".join(args.keywords), 40, one_line=True)
        display.remark(f"几个关键词合在一起：“{joined}”（与 ./poet write {joined} 相同）")
    args.keywords = "".join(args.keywords)
    if not args.keywords and not args.acrostic:
        raise CliError("请给至少一个汉字，例如 ./poet write 月；藏头诗：./poet write --acrostic 春夏秋冬")
    for what, text in (("关键词", args.keywords), ("藏头字", args.acrostic)):
        if text and len(text) > MAX_PROMPT:
            raise CliError(
                f"{what}太长：{len(text)} 个字符（要的是 1–4 个汉字，藏头诗正好 4 个）：“{safe_text(text, 40, one_line=True, keep_end=True)}”"
            )
    tokenizer = default_tokenizer()
    try:
        model, _ = load_model(args.checkpoint or SHIPPED_MODEL, tokenizer)
        poems = iter_poems(
            model,
            tokenizer,
            args.keywords or "",
            n=args.n,
            form=args.form,
            acrostic=args.acrostic or "",
            sampling=SamplingConfig(args.temperature, args.top_k, args.top_p),
            seed=args.seed,
            constrained=not args.free,
            rules=Rules(rhyme=args.rhyme, tones=args.tones),
            drafts=args.drafts,
            score=args.score,
        )
    except (GenerationError, CheckpointError) as e:
        raise refused(e, args.checkpoint) from None
    if args.json:
        display.write_json([p.to_dict() | {"prosody": poem_report(p.text)} for p in poems])
        return 0
    written = 0
    for poem in poems:  # 写好一首印一首：Ctrl-C 时已经写好的都在屏幕上
        display.poem(poem, LINE_ENDS, first=written == 0, score=args.score)
        written += 1
    if written < args.n:
        console.print(
            f"\n只写出了 {written} 首不同的诗：采样太确定（温度很低，或 top-k、top-p 很小），"
            "再写也是重复的。要更多不同的诗，请调高 --temperature 或 --top-p",
            soft_wrap=True,
        )
    return 0


def cmd_eval(args) -> int:
    from poetry_gpt.checkpoint import SHIPPED_MODEL, CheckpointError, load_model
    from poetry_gpt.data import default_tokenizer
    from poetry_gpt.evaluation import CROSS_ENTROPY, POEMS, evaluate_model

    from .reader_table import reader_markdown

    tokenizer = default_tokenizer()
    try:
        model, _ = load_model(args.checkpoint or SHIPPED_MODEL, tokenizer)
    except CheckpointError as e:
        raise refused(e, args.checkpoint) from None
    if display.console.is_terminal:
        display.console.print("正在评估：验证集的交叉熵与二元基线，再按提示写诗（含藏头与四个关键词）")
    with display.stages({CROSS_ENTROPY: "批", POEMS: "首"}) as report:
        result = evaluate_model(
            model,
            tokenizer,
            n_prompts=args.prompts,
            val_poems=args.val_poems,
            rules=PLAIN if args.plain else VERSE,
            drafts=args.drafts if args.drafts is not None else 1 if args.plain else DRAFTS,
            progress=report,
        )
    if args.json:
        display.write_json(result)
        return 0
    if args.markdown:
        display.write_text(reader_markdown(result))
        return 0
    tables.eval_table(result, args.checkpoint or str(SHIPPED_MODEL.relative_to(ROOT)))
    return 0


def register(sub) -> None:
    """把模型的命令加到 poet 的子命令里。"""
    _register_train(sub)
    _register_write(sub)
    _register_eval(sub)


def _register_train(sub) -> None:
    p = sub.add_parser("train", help="训练模型：进度条、定期验证、原子存档、断点续训")
    p.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        help="默认 tiny：几十秒的小模型；base：课上训练的模型；regulated：加上律诗材料（随课程发布的模型用它训练，见 data/MODEL.md）",
    )
    p.add_argument(
        "--author",
        metavar="诗人",
        help="微调（第 26 课）：从随课程发布的模型（或 --from 给的模型）开始，只用这位诗人的绝句再训练一会儿，"
        "学他的口吻；他留在 val 里的诗用来验证",
    )
    p.add_argument(
        "--from",
        dest="start_from",
        metavar="模型文件",
        help="微调的起点（默认 data/model.pt；也可以是 ./poet train 写出的存档），要和 --author 一起给",
    )
    p.add_argument(
        "--width", type=Number(int, 8, 1024), metavar="宽度", help="模型宽度 C（默认按预设；要能被 n_heads 整除）"
    )
    p.add_argument("--n-layers", type=Number(int, 1, 24), metavar="层数", help="Block 的层数（默认按预设）")
    p.add_argument("--n-heads", type=Number(int, 1, 32), metavar="头数", help="注意力头数（默认按预设）")
    p.add_argument("--steps", type=positive_int, metavar="步数", help="总步数（默认按预设）")
    p.add_argument(
        "--minutes",
        type=minutes,
        metavar="分钟",
        help="在这么多分钟内训练完：先量几步的用时，排定总步数与预热，让学习率在截止时降到最低，机器变慢时按钟表重排；"
        "时间少到学不到东西时不开始（不与 --steps、--resume 同用）",
    )
    p.add_argument(
        "--stop-after",
        type=minutes,
        metavar="分钟",
        help="这一次只训练这么多分钟，到时写好存档停下，下次加 --resume 接着训练（分几次训练完；总步数与日程第一次就定好）",
    )
    p.add_argument(
        "--stop-at", type=positive_int, metavar="步数", help="训练到这一步就写好存档停下（之后可以 --resume）"
    )
    p.add_argument("--lr", type=Number(float, 0, 1, low_open=True), metavar="学习率", help="峰值学习率（默认按预设）")
    p.add_argument(
        "--schedule",
        choices=SCHEDULES,
        help="学习率日程：cosine 预热后余弦衰减；wsd 预热、持平、最后两成步数才降（默认按预设，都是 cosine）",
    )
    p.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        help="优化器：adamw（第 16 课）；muon 给 Block 里的矩阵换成正交化的动量（默认按预设，都是 adamw）",
    )
    p.add_argument("--out", metavar="文件夹", help="存档目录（默认 runs/<预设名>；微调时 runs/<诗人>）")
    p.add_argument("--resume", action="store_true", help="从 --out 里的存档接着训练")
    p.add_argument("--force", action="store_true", help="--out 里已有存档时也从头训练（覆盖它）")
    p.add_argument("--device", choices=DEVICES, default=DEVICES[0], help=f"在哪里训练（默认 {DEVICES[0]}）")
    p.add_argument(
        "--precision",
        choices=PRECISIONS,
        help="矩阵乘法的精度（默认按预设：tiny 用 fp32，base 用 auto——bf16 更快的设备上用 bf16）",
    )
    p.set_defaults(func=cmd_train)


def _register_write(sub) -> None:
    p = sub.add_parser("write", help="写一首绝句：./poet write 月")
    p.add_argument("keywords", nargs="*", metavar="关键词", help="要写进诗里的字（1–4 个，繁体也可以）")
    p.add_argument(
        "--form", type=int, choices=(5, 7), help="5：五言；7：七言（默认按训练诗里两种体裁的比例抽，七言约 83%%）"
    )
    p.add_argument("--acrostic", metavar="四个字", help="藏头诗：4 个字，分别作每句的第一个字")
    p.add_argument(
        "-n",
        type=Number(int, 1, MAX_POEMS),
        default=1,
        metavar="首数",
        help=f"写几首不同的诗（默认 1，最多 {MAX_POEMS}；依次用种子 s、s+1……，s 是 --seed；"
        "需要更多请分几次写，后一次的 --seed 从前一次用过的种子之后取）",
    )
    p.add_argument(
        "--temperature",
        type=temperature,
        default=TEMPERATURE,
        metavar="温度",
        help=f"温度（默认 {TEMPERATURE}；0 表示每步取最可能的字）",
    )
    p.add_argument(
        "--top-k", type=top_k, default=TOP_K, metavar="k", help=f"只在最可能的 k 个字里抽（默认 {TOP_K}；0 表示不限）"
    )
    p.add_argument(
        "--top-p", type=top_p, default=TOP_P, metavar="p", help=f"只在累计概率达到 p 的字里抽（默认 {TOP_P}）"
    )
    p.add_argument(
        "--drafts",
        type=Number(int, 1, MAX_DRAFTS),
        default=DRAFTS,
        metavar="份数",
        help=f"每首诗一起写几份草稿，留下模型自己最有把握的一份（默认 {DRAFTS}；1 表示只写一份、不挑；第 25 课）",
    )
    p.add_argument(
        "--score",
        choices=SCORES,
        default=SCORE,
        help=f"挑草稿的分数：likelihood 每字平均对数概率，coherence 再加后两句与前两句的点互信息（默认 {SCORE}）",
    )
    p.add_argument("--seed", type=seed, metavar="种子", help="随机种子：同一个种子写出同一首诗")
    p.add_argument(
        "--checkpoint", metavar="存档", help="用哪个存档，或 ./poet train 的存档目录（默认随课程发布的 data/model.pt）"
    )
    p.add_argument("--free", action="store_true", help="关掉格式约束，看模型自己会写成什么样")
    p.add_argument(
        "--rhyme",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="第二、四句押平水韵、句尾不用同一个字（默认押韵；--no-rhyme 不管）",
    )
    p.add_argument(
        "--tones",
        choices=TONE_MODES,
        default=VERSE.tones,
        help=f"平仄：strict 每字都论，lenient 一三五不论，off 不管（默认 {VERSE.tones}）",
    )
    p.add_argument(
        "--json", action="store_true", help="以 JSON 输出（每首诗带押韵、平仄、粘对的报告，每份草稿与它的分数）"
    )
    p.set_defaults(func=cmd_write)


def _register_eval(sub) -> None:
    p = sub.add_parser("eval", help="评估一个模型：交叉熵与二元基线、格式、关键词、抄袭率、distinct-2、速度")
    p.add_argument("--checkpoint", metavar="存档", help="用哪个存档（默认 data/model.pt）")
    p.add_argument(
        "--prompts",
        type=positive_int,
        default=EVAL_PROMPTS,
        metavar="个数",
        help=f"用几个固定提示写诗（默认 {EVAL_PROMPTS}）",
    )
    p.add_argument(
        "--val-poems", type=positive_int, metavar="首数", help="从 val 里等距取多少首算交叉熵与二元基线（默认全部）"
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="只守格式的解码（第 22、23 课），不押韵、不管平仄与重复，每首只写一份草稿",
    )
    p.add_argument(
        "--drafts",
        type=Number(int, 1, MAX_DRAFTS),
        metavar="份数",
        help=f"受约束的诗每首写几份草稿、留下最有把握的一份（默认与 ./poet write 相同，{DRAFTS}；--plain 时 1）",
    )
    p.add_argument("--json", action="store_true", help="以 JSON 输出")
    p.add_argument("--markdown", action="store_true", help="只印“读者看得到的”表，Markdown 格式（data/MODEL.md 用它）")
    p.set_defaults(func=cmd_eval)
