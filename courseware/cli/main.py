"""poet 的入口：把各个房间的命令装进一个解析器，运行一个命令，出错时给中文说明与退出码。"""

from __future__ import annotations

import os
import sys

from .. import lesson_progress
from . import display, learner, maintainer, model_cmds, teacher
from .parser import ChineseParser, CliError, SubcommandParser, check_argv

ROOMS = (learner, model_cmds, teacher, maintainer)
"""每个房间一个模块，各有 register(sub)。新命令：写进对应房间的模块（cmd_* 函数 + register 里的一段）；
新的一类用户才需要新房间，加到这里。"""


def build_parser() -> ChineseParser:
    parser = ChineseParser(prog="./poet", description="一字一诗：从零搭一个会写绝句的小 GPT。不带参数时显示课程地图。")
    sub = parser.add_subparsers(dest="command", title="子命令", metavar="命令", parser_class=SubcommandParser)
    for room in ROOMS:
        room.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """运行一个 poet 命令，返回退出码（参数写错时 argparse 以 2 退出）。

    在任何终端上都不抛错误栈：写不出的字写成 ?（display.tolerant_output），输出被 head 之类提前关掉时
    只是不再输出、命令照样做完（display.stop_printing），
    带控制字符或长得离谱的参数在解析之前就用中文拒绝（parser.check_argv）。
    """
    display.tolerant_output()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        check_argv(argv)
        args = build_parser().parse_args(argv)
        return args.func(args) if getattr(args, "func", None) else learner.cmd_map(args)
    except (CliError, lesson_progress.ProgressError) as e:
        display.error(str(e))
        return getattr(e, "code", 2)
    except KeyboardInterrupt:
        display.console.print("\n已中断。")
        return 130
    except BrokenPipeError:
        # rich 与 display.write_text 遇到关掉的管道只是不再输出、命令照样做完（display.stop_printing）；
        # 到这里的是别处直接写的输出，或 ./poet lesson 的实验因管道关掉而结束：读的人看够了
        display.stop_printing()
        return 0


def run() -> None:
    """命令行入口（pyproject 的 poet 脚本）：运行命令后直接结束进程。

    输出都已写完、文件都已原子写好；载入过 torch 的解释器正常退出时还要花 0.3–0.5 秒清理模块，
    ``./poet write 月`` 的总时间里这一截最可省，所以用 os._exit 跳过它。
    """
    try:
        code = main()
    except SystemExit as e:  # argparse：参数写错（2）或 --help（0）
        code = e.code if isinstance(e.code, int) else 2
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(code)
