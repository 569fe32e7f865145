"""重算的数对记录下来的数：./poet verify 与测试比较实验现在印的与 lessons/NN/output.txt
（:func:`same_line`），测试比较网站的图现算出的文字与记录（:func:`contains`），都用唯一的一条规则
figures.agrees（它与数的写法 Number 放在一起；课文的数对记录也用它）。

写法相同（同样几位小数），带小数的数相差不超过 :func:`tolerance`——换一种 CPU、线程数或 torch 的 CPU 内核
（ATEN_CPU_CAPABILITY），float32 的加法先后会变，最后一位会动；整数（计数、编号、步数）与文字一点不差。
舍入差这种本身就是噪声的量不靠容差：实验不印它的值，印成界（labs.below：“不到 1e-6”）或标成 measured（不比较）。
课文里的数对记录另外认四舍五入（figures.Number.rounds_to）。
"""

from __future__ import annotations

import re

from .figures import _SOURCE_NUMBER, agrees, skeleton


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
