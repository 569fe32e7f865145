"""重算的数对记录下来的数：唯一的比较规则。./poet verify 与测试比较实验现在印的与 lessons/NN/output.txt
（:func:`same_line`），测试比较网站的图现算出的文字与记录（:func:`contains`），都用 :func:`agrees`。

写法相同（同样几位小数），带小数的数相差不超过 :func:`tolerance`——换一种 CPU、线程数或 torch 的 CPU 内核
（ATEN_CPU_CAPABILITY），float32 的加法先后会变，最后一位会动；整数（计数、编号、步数）与文字一点不差。
舍入差这种本身就是噪声的量不靠容差：实验不印它的值，印成界（labs.below：“不到 1e-6”）或标成 measured（不比较）。
课文里的数对记录是另一回事：四舍五入，两边都是文件（figures.Number.rounds_to）。
"""

from __future__ import annotations

import re
from decimal import Decimal

from .figures import _SOURCE_NUMBER, Number, parse_number, skeleton

RELATIVE = Decimal("1e-5")
"""重算的数与记录允许的相对差（见 :func:`tolerance`）：在这台机器上见过第 07 课的困惑度 1 个线程 709.0126、
2 个线程 709.0129（相对差 4e-7），第 18 课的损失 Intel Xeon 上 7.17275、AMD EPYC 上 7.17274。"""


def tolerance(number: Number) -> Decimal:
    """number 在别的机器上重算、照同样的写法印出来时，允许与它相差多少：带小数点（或写成 1.5e-08）的数是
    最后一位的 1 与相对 RELATIVE 里较大的；整数（计数、编号、步数）是 0。"""
    if "." not in number.written and "e" not in number.written:
        return Decimal(0)
    return max(Decimal(1).scaleb(-number.places), RELATIVE * abs(number.value))


def agrees(recorded: str | Number, now: str | Number) -> bool:
    """重算的数 now 与记录里的 recorded 是否算同一个数：写法的位数相同，相差不超过 tolerance(recorded)。"""
    a = recorded if isinstance(recorded, Number) else parse_number(recorded)
    b = now if isinstance(now, Number) else parse_number(now)
    return a.places == b.places and abs(a.value - b.value) <= tolerance(a)


def same_line(recorded: str, now: str) -> bool:
    """两行输出是否相同：去掉数之后一字不差（空白与表格线不论，见 :func:`skeleton`），数两两 :func:`agrees`。"""
    if recorded == now:
        return True
    if skeleton(recorded) != skeleton(now):
        return False
    left, right = _SOURCE_NUMBER.findall(recorded), _SOURCE_NUMBER.findall(now)
    return len(left) == len(right) and all(agrees(a, b) for a, b in zip(left, right))


def contains(text: str, recorded: str) -> bool:
    """text（比如网站的图现算出的文字）里是否有一段与 recorded（照记录拼出的一句）相同：数以外一字不差，
    数两两 :func:`agrees`。测试用它对照网站的图与记录，不拿浮点数的最后一位当字符串比。"""
    parts = _SOURCE_NUMBER.split(recorded)
    wanted = _SOURCE_NUMBER.findall(recorded)
    pattern = "".join(
        re.escape(part) + (f"({_SOURCE_NUMBER.pattern})" if i < len(wanted) else "") for i, part in enumerate(parts)
    )
    return any(all(agrees(a, b) for a, b in zip(wanted, m.groups())) for m in re.finditer(pattern, text))
