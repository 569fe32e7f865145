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
import unicodedata

from poetry_gpt.settings import MAX_SEED, MIN_TOP_K, TOP_P_RANGE, temperature_problem

from ..messages import safe_text


class CliError(Exception):
    """给学习者看的错误：打印 message，以 code 退出（不打印 Python 错误栈）。"""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


# ---------- 参数的文字 ----------

MAX_ARGUMENT = 4096
"""一个命令行参数最多多少字节（UTF-8）：Linux 上路径最长 4096 字节。"""
MAX_NAME = 255
"""参数里以 / 分开的每一段最多多少字节：Linux 上一个文件名最长 255 字节。再长的参数一定是贴错了东西，
不查的话，各个命令会在第一次用它当路径时因 “File name too long” 出错。"""


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))  # 不是 UTF-8 的字节（\udcff 这种）多算两个字节，宁紧勿松


def check_argv(argv: list[str]) -> None:
    """解析之前先看每个参数：空字符、控制字符（空白除外）和超长的参数，用中文说明是第几个、哪里不对。

    Raises:
        CliError: 参数里有 NUL 或其他控制字符，长过 MAX_ARGUMENT 字节，或其中一段长过 MAX_NAME 字节（以 2 退出）。
    """
    for n, arg in enumerate(argv, 1):
        bad = next((i for i, ch in enumerate(arg) if unicodedata.category(ch) == "Cc" and not ch.isspace()), None)
        if bad is not None:
            what = "空字符 \\x00" if arg[bad] == "\0" else f"控制字符 {repr(arg[bad])[1:-1]}"
            raise CliError(
                f"第 {n} 个参数“{safe_text(arg, 40, one_line=True, keep_end=True)}”的第 {bad + 1} 个字符是{what}，命令里不能有它；"
                "请检查是不是从别处复制时带进来的"
            )
        if _bytes(arg) > MAX_ARGUMENT or any(_bytes(part) > MAX_NAME for part in arg.split("/")):
            raise CliError(
                f"第 {n} 个参数太长（{len(arg)} 个字符）：“{safe_text(arg, 40, one_line=True, keep_end=True)}”。命令里的参数用不着这么长："
                f"路径最长 {MAX_ARGUMENT} 字节，其中每个文件名最长 {MAX_NAME} 字节，写诗的关键词只要 1–4 个字"
            )


# ---------- 数值参数的 type ----------


class Number:
    """argparse 的 type：把文字变成 int 或 float，并检查它有限、在 [low, high] 内（low_open 时不含 low）。

    Raises:
        argparse.ArgumentTypeError: 中文说明，如“要是正整数，收到 0”“要是有限数，收到 nan”。
    """

    def __init__(
        self, kind: type, low: float | None = None, high: float | None = None, *, low_open: bool = False, what: str = ""
    ):
        self.kind, self.low, self.high, self.low_open, self.what = kind, low, high, low_open, what
        self.__name__ = "整数" if kind is int else "数"  # argparse 在出错信息里用它

    def __call__(self, text: str):
        try:
            value = self.kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{self.what}“{safe_text(text, 40, one_line=True, keep_end=True)}”不是{self.__name__}"
            ) from None
        if self.kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(
                f"{self.what}要是有限数，收到 {safe_text(text, 40, one_line=True, keep_end=True)}"
            )
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            if self.kind is int and self.low == 1:
                raise argparse.ArgumentTypeError(f"{self.what}要是正整数，收到 {value}")
            bound = f"大于 {self.low:g}" if self.low_open else f"至少为 {self.low:g}"
            raise argparse.ArgumentTypeError(f"{self.what}要{bound}，收到 {value:g}")
        if self.high is not None and value > self.high:
            raise argparse.ArgumentTypeError(
                f"{self.what}最多 {self.high:g}，收到 {value:g}"
                if self.kind is float
                else f"{self.what}最多 {self.high}，收到 {value}"
            )
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
top_k = Number(int, MIN_TOP_K)
"""top-k：0 表示不限（范围见 settings）。"""
top_p = Number(float, *TOP_P_RANGE, low_open=True)
"""top-p：(0, 1]（范围见 settings）。"""


def temperature(text: str) -> float:
    """温度：有限数，0（每步取最可能的字）或在 [settings.MIN_TEMPERATURE, settings.MAX_TEMPERATURE] 内。"""
    value = Number(float)(text)
    problem = temperature_problem(value, safe_text(text, 40, one_line=True, keep_end=True))
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return value


def seed(text: str) -> int:
    """随机种子：0 ≤ seed < 2**63。"""
    return Number(int, 0, MAX_SEED - 1, what="随机种子")(text)


# ---------- 说中文的解析器 ----------

# argparse 的英文提示的格式（%(name)s 是占位）→ 中文
_MESSAGES = {
    "argument %(argument_name)s: %(message)s": "%(argument_name)s%(message)s",
    "invalid choice: %(value)r (choose from %(choices)s)": "不能是“%(value)s”，只能从 %(choices)s 中选",
    "invalid %(type)s value: %(value)r": "“%(value)s”不是有效的数",
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


def _group(key: str, text: str) -> str:
    """英文消息里的一段在中文消息里的写法。"""
    if key == "message":
        return translate(text)
    if key == "choices":  # argparse 写成 'tiny', 'base'；中文里列举用顿号：tiny、base
        return text.replace("'", "").replace(", ", "、")
    if key == "value" and len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        text = text[1:-1]  # argparse 已经用 repr 加了引号；中文消息里用“”，不要两层
    elif key == "args":
        text = text.replace(", ", "、")
    elif key == "argument_name" and text.isascii():
        text += " "  # --preset 不能是…；中文的参数名（命令、课号）后面不空格
    return safe_text(text, 80, one_line=True, keep_end=True)


def translate(message: str) -> str:
    """把 argparse 的一条英文错误换成中文（嵌套的也换，如“argument --x: invalid choice…”）；不认识的原样返回。"""
    for pattern, zh in _TRANSLATIONS:
        m = pattern.match(message)
        if m:
            return zh % {k: _group(k, v) for k, v in m.groupdict().items()}
    return message


def _cells(text: str) -> int:
    """终端里占几格：汉字与全角符号占两格。"""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class ChineseHelpFormatter(argparse.HelpFormatter):
    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, prefix="用法：" if prefix is None else prefix)

    # argparse 按字符数折行、对齐；“--seed 种子”这样带汉字的写法在终端里更宽，下面几处按格数补回来
    def _format_usage(self, usage, actions, groups, prefix):
        width = self._width
        try:  # 用法折得窄一些，直到每行按格数也放得下
            while True:
                text = super()._format_usage(usage, actions, groups, prefix)
                if self._width <= 40 or all(_cells(line) <= width for line in text.splitlines()):
                    return text
                self._width -= 4
        finally:
            self._width = width

    def add_argument(self, action):
        super().add_argument(action)
        if action.help is not argparse.SUPPRESS:
            width = _cells(self._format_action_invocation(action)) + self._current_indent
            self._action_max_length = max(self._action_max_length, width)

    def _split_lines(self, text, width):
        # 说明文字按格数折行（argparse 按字符数折，一行汉字会宽出一倍）：英文词整个走，汉字一个一个走
        lines, line = [], ""
        for word in re.findall(r"\s*[!-~]+|\s*\S", " ".join(text.split())):
            if line and _cells(line + word) > width:
                lines.append(line)
                line = ""
                word = word.lstrip()
            line += word
        return lines + [line] if line else lines

    def _format_action(self, action):
        text = super()._format_action(action)
        head = " " * self._current_indent + self._format_action_invocation(action)
        extra = _cells(head) - len(head)
        if not extra or not text.startswith(head + "  "):
            return text
        rest = text[len(head) :]
        gap = len(rest) - len(rest.lstrip(" "))
        if gap - extra >= 2:
            return head + rest[extra:]
        return head + "\n" + " " * (len(head) + gap) + rest.lstrip(" ")  # 放不下了：说明换到下一行


class ChineseParser(argparse.ArgumentParser):
    """提示语都是中文的 ArgumentParser；参数写错时用中文说明、打印用法，以 2 退出。"""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", ChineseHelpFormatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = "参数"
        self._optionals.title = "选项"
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help="显示帮助")

    def format_help(self) -> str:
        # argparse 在小节标题后写半角冒号（“选项:”）；中文里用全角的“选项：”
        text = super().format_help()
        for group in self._action_groups:
            text = text.replace(f"\n{group.title}:\n", f"\n{group.title}：\n")
        return text

    def error(self, message):
        sys.stderr.write(
            f"命令写得不对：{translate(message)}\n{self.format_usage().strip()}\n查看帮助：{self.prog} --help\n"
        )
        sys.exit(2)


class SubcommandParser(ChineseParser):
    """子命令（poet write 等）的解析器：多出来的参数由子命令自己报错，印出的是 poet write 的用法，不是 poet 的。"""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            # argparse 把子命令不认识的参数交回 poet，由 poet 报错并印 poet 的总用法；可子命令之后的参数
            # poet 也不认（它们全归子命令），所以就在这里报，学习者看到的是这个子命令该怎么写
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


port = Number(int, 1, 65535)
"""网络端口。"""
