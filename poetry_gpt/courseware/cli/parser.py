"""poet 的参数解析：说中文的 ArgumentParser，和每种数值参数唯一的 argparse type。

argparse 自己的提示语（用法、选项、各种错误）在 :class:`ChineseParser` 里换成中文，不改动 argparse 模块本身。
数值参数一律用这里的 type 检查（有限、在范围内）：写错时 argparse 以中文说明并以 2 退出，命令本身不再另做检查。
bench/ 的脚本也用同一个解析器和同一批 type。
"""
from __future__ import annotations

import argparse
import math
import re
import sys

from ...sampling import MAX_SEED, MIN_TEMPERATURE


class CliError(Exception):
    """给学习者看的错误：打印 message，以 code 退出（不打印 Python 错误栈）。"""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


# ---------- 数值参数的 type ----------

class Number:
    """argparse 的 type：把文字变成 int 或 float，并检查它有限、在 [low, high] 内（low_open 时不含 low）。

    Raises:
        argparse.ArgumentTypeError: 中文说明，如“要是正整数，收到 0”“要是有限数，收到 nan”。
    """

    def __init__(self, kind: type, low: float | None = None, high: float | None = None, *,
                 low_open: bool = False, what: str = ""):
        self.kind, self.low, self.high, self.low_open, self.what = kind, low, high, low_open, what
        self.__name__ = "整数" if kind is int else "数"  # argparse 在出错信息里用它

    def __call__(self, text: str):
        try:
            value = self.kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{self.what}{text!r} 不是{self.__name__}") from None
        if self.kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{self.what}要是有限数，收到 {text}")
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            if self.kind is int and self.low == 1:
                raise argparse.ArgumentTypeError(f"{self.what}要是正整数，收到 {value}")
            bound = f"大于 {self.low:g}" if self.low_open else f"至少为 {self.low:g}"
            raise argparse.ArgumentTypeError(f"{self.what}要{bound}，收到 {value:g}")
        if self.high is not None and value > self.high:
            raise argparse.ArgumentTypeError(f"{self.what}最多 {self.high}，收到 {value}")
        return value


positive_int = Number(int, 1)
"""正整数：步数、轮数、线程数、份数。"""
seconds = Number(float, 0, 24 * 3600, low_open=True)
"""时间上限（秒）：大于 0、不超过一天。"""
minutes = Number(float, 0, 7 * 24 * 60, low_open=True)
"""训练时长（分钟）：大于 0、不超过一周。"""
memory_mb = Number(int, 1, 1 << 20)
"""内存上限（MiB）。"""
jobs = Number(int, 1, 256)
"""同时跑几份。"""
top_k = Number(int, 0)
"""top-k：0 表示不限。"""
top_p = Number(float, 0, 1, low_open=True)
"""top-p：(0, 1]。"""


def temperature(text: str) -> float:
    """温度：有限数，0（每步取最可能的字）或不小于 sampling.MIN_TEMPERATURE。"""
    value = Number(float, 0)(text)
    if 0 < value < MIN_TEMPERATURE:
        raise argparse.ArgumentTypeError(f"要么是 0（每步取最可能的字），要么不小于 {MIN_TEMPERATURE}，收到 {text}"
                                         "（再小的温度除出来的分数会溢出）")
    return value


def seed(text: str) -> int:
    """随机种子：0 ≤ seed < 2**63。"""
    return Number(int, 0, MAX_SEED - 1, what="随机种子")(text)


# ---------- 说中文的解析器 ----------

# argparse 的英文提示的格式（%(name)s 是占位）→ 中文
_MESSAGES = {
    "argument %(argument_name)s: %(message)s": "%(argument_name)s %(message)s",
    "invalid choice: %(value)r (choose from %(choices)s)": "不能是 %(value)r，只能从 %(choices)s 中选",
    "invalid %(type)s value: %(value)r": "%(value)r 不是有效的数",
    "the following arguments are required: %(args)s": "缺少参数：%(args)s",
    "unrecognized arguments: %(args)s": "不认识这些参数：%(args)s",
    "expected one argument": "后面要跟一个值",
    "expected at most one argument": "后面最多跟一个值",
    "expected at least one argument": "后面至少跟一个值",
    "ambiguous option: %(option)s could match %(matches)s": "%(option)s 有歧义，可能是 %(matches)s",
    "not allowed with argument %(args)s": "不能与 %(args)s 同时使用",
}


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"%\((\w+)\)[sr]", template)
    regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(regex + "$", re.DOTALL)


_TRANSLATIONS = [(_pattern(en), zh) for en, zh in _MESSAGES.items()]


def translate(message: str) -> str:
    """把 argparse 的一条英文错误换成中文（嵌套的也换，如“argument --x: invalid choice…”）；不认识的原样返回。"""
    for pattern, zh in _TRANSLATIONS:
        m = pattern.match(message)
        if m:
            groups = {k: translate(v) if k == "message" else v.replace("'", "") if k == "choices" else v
                      for k, v in m.groupdict().items()}
            return zh % groups
    return message


class ChineseHelpFormatter(argparse.HelpFormatter):
    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, prefix="用法：" if prefix is None else prefix)


class ChineseParser(argparse.ArgumentParser):
    """提示语都是中文的 ArgumentParser；参数写错时用中文说明、打印用法，以 2 退出。"""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", ChineseHelpFormatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = "参数"
        self._optionals.title = "选项"
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help="显示帮助")

    def error(self, message):
        sys.stderr.write(f"命令写得不对：{translate(message)}\n{self.format_usage().strip()}\n"
                         f"查看帮助：{self.prog} --help\n")
        sys.exit(2)
port = Number(int, 1, 65535)
"""网络端口。"""
