"""维护者的命令：全课自检（verify）与课程网站（site）。"""

from __future__ import annotations

import os
import time
from pathlib import Path

from poetry_gpt.common import os_reason

from . import display, tables
from .display import console, shown
from .parser import CliError, jobs, port, seconds


def cmd_verify(args) -> int:
    from ..selfcheck.excerpts import check_excerpts
    from ..selfcheck.figures import OTHER_TEXTS, FiguresError, check_text
    from ..selfcheck.teaching import guide_problem
    from ..selfcheck.verify import CACHE_FILE, CHECK_TITLES, CHECKS, verify

    started = time.monotonic()
    if args.starters:
        from ..catalogue import CATALOGUE
        from ..selfcheck.starters import write_starters

        changed = write_starters([lesson for lesson in CATALOGUE if (lesson.folder / "solution.py").is_file()])
        console.print(
            f"由 solution.py 重写了 {len(changed)} 课的 starter.py"
            + ("：" + "、".join(f"第 {lesson.code} 课" for lesson in changed) if changed else "（都已与生成的一致）")
        )
        return 0
    if args.docs:
        from ..selfcheck.teaching import GUIDE, GuideError, write_guide

        try:
            changed = write_guide()
        except GuideError as e:
            raise CliError(str(e), code=1) from None
        console.print(
            f"{shown(GUIDE)}：每课不许用的捷径"
            + ("已按各课的 check.py 重写" if changed else "已与各课的 check.py 一致")
        )
        return 0
    if args.record:
        from ..selfcheck.verify import record_all

        with display.busy("正在重新运行每一课的实验" + ("与 ./poet eval（要几分钟）" if args.eval else "") + " …"):
            try:
                reports, strays, stale = record_all(args.jobs, args.timeout, with_eval=args.eval)
            except (FiguresError, RuntimeError) as e:
                raise CliError(f"记录没有完成：{e}", code=1) from None
        tables.verify_table(reports, strays, CHECKS, CHECK_TITLES, time.monotonic() - started)
        tables.stale_figures(stale, recorded=True)
        return 0 if all(r.ok for r in reports) and not strays and not stale else 1
    with display.busy("正在检查每一课 …"):
        reports, strays = verify(args.jobs, args.timeout, None if args.fresh else CACHE_FILE)
        try:
            others = [str(s) for text in OTHER_TEXTS for s in check_text(text).stale]
            others += [p for text in OTHER_TEXTS for p in check_excerpts(text).problems]
        except FiguresError as e:
            others = [str(e)]
        others += [p for p in [guide_problem()] if p]
    tables.verify_table(reports, strays, CHECKS, CHECK_TITLES, time.monotonic() - started)
    tables.stale_figures([(line, None) for line in others])
    return 0 if all(r.ok for r in reports) and not strays and not others else 1


def cmd_site(args) -> int:
    from ..catalogue import ManifestError
    from ..site.build import SiteError, build, serve

    try:
        result = build(Path(args.out) if args.out else None)
    except (SiteError, ManifestError) as e:  # 课表里的 chart 写错了：中文的一句，不是错误栈
        raise CliError(str(e), code=1) from None
    console.print(
        f"已生成 {len(result.lessons)} 课的网页（用时 {result.seconds:.1f} 秒）：{shown(result.out / 'index.html')}"
        "，双击即可离线打开。"
    )
    if args.serve:
        try:
            serve(result.out, args.port)
        except OSError as e:
            raise CliError(
                f"不能在 127.0.0.1:{args.port} 上预览：{os_reason(e)}。换一个端口试试，例如 --port 8001。"
            ) from None
        except KeyboardInterrupt:
            console.print("\n预览已停止。")
    return 0


def register(sub) -> None:
    """把维护者的命令加到 poet 的子命令里。"""
    p = sub.add_parser("verify", help="维护者用：检查每一课的实验、参考答案、起始代码、课文小节，以及课文里的数与代码")
    p.add_argument(
        "--jobs", type=jobs, default=os.cpu_count() or 1, metavar="份数", help="同时跑几项（默认：CPU 核数）"
    )
    p.add_argument(
        "--timeout", type=seconds, default=60.0, metavar="秒数", help="实验与每次检查的时间上限（秒，默认 60）"
    )
    p.add_argument("--fresh", action="store_true", help="不沿用上次的通过结果，全部重跑")
    p.add_argument(
        "--record",
        action="store_true",
        help="换了模型或改了实验之后：重新运行全部实验与 ./poet eval，重写记录下来的输出"
        "（lessons/NN/output.txt、results/），再列出课文里每一个对不上的数与代码块",
    )
    p.add_argument(
        "--no-eval",
        dest="eval",
        action="store_false",
        help="与 --record 一起用：不重跑 ./poet eval（三遍要十来分钟），沿用 results/eval*.json",
    )
    p.add_argument(
        "--starters",
        action="store_true",
        help="改了参考答案之后：由各课的 solution.py 重新生成 starter.py（solve 的函数体换成 raise），不跑别的检查",
    )
    p.add_argument(
        "--docs",
        action="store_true",
        help="改了某课 check.py 的规则之后：重写 docs/teaching.md 里每课不许用的捷径，不跑别的检查",
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("site", help="把写好的课生成静态网页（site/index.html，离线可看）")
    p.add_argument("--out", metavar="文件夹", help="生成到哪个文件夹（默认仓库里的 site/）")
    p.add_argument("--serve", action="store_true", help="生成后在 127.0.0.1 上预览，Ctrl+C 停止")
    p.add_argument("--port", type=port, default=8000, metavar="端口", help="预览用的端口（默认 8000）")
    p.set_defaults(func=cmd_site)
