"""比较参考输出与学习者交回的输出，作出判定（judge）。交回的东西此前已由 reply.py 核对过格式。"""

from __future__ import annotations

import io
import math
import struct

import torch

from ..catalogue import Lesson
from ..messages import error_hint
from . import wire
from .course import lesson_check


def _float32(v: float) -> float | None:
    """v 舍入到 float32 的值；超出 float32 的范围时为 None。"""
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return None


def number_text(v: float) -> str:
    """一个浮点数单独显示时的写法：repr，能读回同一个数的最短写法。恰好是 float32 的数（float32 张量的 .tolist()、
    .item()）按 float32 取最短：0.4，不是 0.4000000059604645。"""
    if math.isfinite(v) and _float32(v) == v:
        v = float(next(t for p in range(1, 10) if _float32(float(t := f"{v:.{p}g}")) == v))
    return repr(v)  # 2.0 仍写作 2.0：与整数 2 分得开


def number_pair(a: float, b: float, most: int = 17) -> tuple[str, str]:
    """两个数并排比较时的写法（“应为 1.813、实际是 1.810”）：两边一样多位小数，从大的那个数的 4 位有效数字起，
    a ≠ b 时多到两边写出来不一样为止（至多 most 位有效数字：float32 的数给 9，印不出 float32 的噪声），
    再去掉两边共有的末尾 0。很大或很小的数用科学记数法。"""
    if not (math.isfinite(a) and math.isfinite(b)):
        return number_text(a), number_text(b)
    big = max(abs(a), abs(b))
    if not 1e-4 <= big < 1e7:
        forms = [f"{{:.{p}e}}" for p in range(3, most)]
    else:
        lead = math.floor(math.log10(big))
        forms = [f"{{:.{d}f}}" for d in range(max(0, 3 - lead), max(1, most - lead))]
    for form in forms:
        x, y = form.format(a), form.format(b)
        if x != y or a == b:
            break
    if "." in x and "e" not in x:
        while x[-1] == y[-1] == "0":
            x, y = x[:-1], y[:-1]
        x, y = x.removesuffix("."), y.removesuffix(".")
    return x, y


def _literal(value, room: int = 300) -> str:
    """值的 Python 写法，浮点数用 number_text（不带 float32 的噪声）；列表、元组、字典写到约 room 个字符为止。"""
    if isinstance(value, float):
        return number_text(value)
    if isinstance(value, (list, tuple, dict)):
        items = (f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) if isinstance(value, dict) else value
        parts, used = [], 0
        for item in items:
            if used > room:
                parts.append("…")
                break
            parts.append(item if isinstance(value, dict) else _literal(item, room - used))
            used += len(parts[-1]) + 2
        ends = "{}" if isinstance(value, dict) else "[]" if isinstance(value, list) else "()"
        return ends[0] + ", ".join(parts) + ("," if isinstance(value, tuple) and len(value) == 1 else "") + ends[1]
    return repr(value)


SHOWN_VALUES = 6
"""预览里每个张量显示几个数。"""


def _short(value, start: int = 0, texts: list[str] | None = None) -> str:
    """把用例的输入、输出写成一行短文本；张量只写形状和 SHOWN_VALUES 个数（从展平后的第 start 个起；
    texts 给出时就用这些写法，见 previews）。0 维张量写明是标量。"""
    if isinstance(value, wire.Unsupported):
        return value.what
    if isinstance(value, wire.Raised):
        return f"raise {value.name}"
    if isinstance(value, torch.Tensor):
        if value.dim() == 0:
            return f"标量张量（0 维）{texts[0] if texts else _literal(value.item())}"
        window = value.flatten()[start : start + SHOWN_VALUES].tolist()
        shown = texts or [f"{v:.4g}" if isinstance(v, float) else str(v) for v in window]
        more = " …" if value.numel() > start + SHOWN_VALUES else ""
        where = f"从 {_position(start, value.shape)} 起 " if start else ""
        return f"张量{list(value.shape)} {where}[{', '.join(shown)}]{more}"
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
        return "(" + ", ".join(_short(v) for v in value[:8]) + (", …" if len(value) > 8 else "") + ")"
    text = _literal(value)
    return text if len(text) <= 300 else text[:300] + " …"


def previews(want, got) -> tuple[str, str]:
    """“应为：”“实际：”两行的预览。两边是形状相同的张量、开头几个数一样时，从第一个不同的位置起显示；
    浮点数两两用 number_pair 写，看得出不同。"""
    if not (
        isinstance(want, torch.Tensor) and isinstance(got, torch.Tensor) and want.shape == got.shape and want.numel()
    ):
        return _short(want), _short(got)
    e, g = want.detach().flatten(), got.detach().flatten()
    differs = (e.double() != g.double()) & ~(e.double().isnan() & g.double().isnan())
    first = int(differs.int().argmax()) if bool(differs.any()) else 0
    start = 0 if first < SHOWN_VALUES or want.dim() == 0 else first
    window = list(zip(e[start : start + SHOWN_VALUES].tolist(), g[start : start + SHOWN_VALUES].tolist()))
    if not (want.is_floating_point() and got.is_floating_point()):
        return _short(want, start), _short(got, start)
    most = 17 if torch.float64 in (want.dtype, got.dtype) else 9
    pairs = [number_pair(a, b, most) for a, b in window]
    return _short(want, start, [x for x, _ in pairs]), _short(got, start, [y for _, y in pairs])


def _kind(value) -> str:
    return {
        torch.Tensor: "张量",
        list: "列表",
        tuple: "元组（tuple）",
        dict: "字典",
        float: "浮点数",
        int: "整数",
        str: "字符串",
        bool: "布尔值",
    }.get(type(value), type(value).__name__)


ZERO_BASED = "（下标从 0 数）"
"""消息里位置的写法只有一种：Python 的下标（[5]、[1, 2]、结果[9]），从 0 数，第一次出现时注明。
“第 N 个用例”“第 N 个参数”“第 N 行”是从 1 数的序数，不是下标。"""


def _position(flat: int, shape) -> str:
    """展平后的第 flat 个元素（从 0 数）写成下标：“[5]”（一维）或“[1, 2]”（多维）。"""
    if len(shape) <= 1:
        return f"[{flat}]"
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return f"[{', '.join(map(str, reversed(index)))}]"


def tensor_difference(expected: torch.Tensor, got: torch.Tensor, shown: int = 5, name=None) -> str:
    """形状相同、数值不同的两个张量哪里不同（中文，给判定消息用）。

    布尔与整数张量：有几个位置不同，列出前 shown 个位置与两边的值；浮点张量：一边是 ±inf 或 nan、
    另一边不同的位置照样列出（两边都是 -inf 的位置算相同，不会算出“相差 nan”），其余说最大相差多少。
    name(位置) 给出时，一维张量的位置后面加上它的名字（如第 22 课的“编号 5（，）”）。
    """
    e, g = expected.detach().double().flatten(), got.detach().double().flatten()
    most = 17 if torch.float64 in (expected.dtype, got.dtype) else 9
    if expected.is_floating_point():
        pair = lambda a, b: number_pair(a, b, most)  # noqa: E731
    elif expected.dtype == torch.bool:
        pair = lambda a, b: (str(bool(a)), str(bool(b)))  # noqa: E731
    else:
        pair = lambda a, b: (str(int(a)), str(int(b)))  # noqa: E731
    if expected.dim() == 0:
        want, actual = pair(e[0].item(), g[0].item())
        return f"结果是一个数（0 维张量，标量）：应为 {want}、实际是 {actual}"
    if expected.is_floating_point():
        finite = torch.isfinite(e) & torch.isfinite(g)
        bad = (~finite & ~((e == g) | (e.isnan() & g.isnan()))).nonzero().flatten().tolist()
        if not bad:
            if not finite.any():
                return "最大相差 0"
            # 说出差得最多的那个位置：预览只显示开头几个数，差别常常不在开头（第 20 课第 0 行只看得见自己）
            gap = torch.where(finite, (e - g).abs(), torch.zeros_like(e))
            i = int(gap.argmax())
            off = int((finite & ~torch.isclose(g, e, rtol=1e-4, atol=1e-5)).sum())
            want, actual = pair(e[i].item(), g[i].item())
            return (
                f"最大相差 {gap[i].item():.4g}，在 {_position(i, expected.shape)}{ZERO_BASED}：应为 {want}、"
                f"实际是 {actual}；共 {off} 个位置超出容差"
            )
    else:
        bad = (e != g).nonzero().flatten().tolist()
    where = []
    for i in bad[:shown]:
        want, actual = pair(e[i].item(), g[i].item())
        label = name(i) if name and expected.dim() == 1 else ""
        where.append(f"{_position(i, expected.shape)}{label} 应为 {want}、实际是 {actual}")
    more = "……" if len(bad) > shown else ""
    return f"{len(bad)} 个位置不同{ZERO_BASED}：" + "；".join(where) + more


def compare(expected, got, where: str = "结果") -> str | None:
    """比较参考输出与学习者的输出。相同返回 None，否则返回中文说明哪里不同。

    整数、字符串、布尔精确相等；张量先比形状与 dtype，浮点数与浮点张量再用 allclose（rtol=1e-4, atol=1e-5）；
    列表、元组、字典逐项比较。got 里交不回来的值（wire.Unsupported）写明它的真实类型与原因。
    """
    if isinstance(got, wire.Unsupported):
        return f"{where}应是{_kind(expected)}，实际交回的是 {got.what}"
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            return f"{where}应是张量，实际是 {type(got).__name__}"
        if tuple(got.shape) != tuple(expected.shape):
            return f"{where}的形状应为 {list(expected.shape)}，实际是 {list(got.shape)}"
        if got.dtype != expected.dtype:  # 数值对、类型错（float64 的概率表、int32 的编号）后面的课会接不上
            return f"{where}的 dtype 应为 {expected.dtype}，实际是 {got.dtype}"
        if expected.is_floating_point():
            ok = got.is_floating_point() and torch.allclose(got.double(), expected.double(), rtol=1e-4, atol=1e-5)
        else:
            ok = not got.is_floating_point() and torch.equal(got.long(), expected.long())
        if ok:
            return None
        return f"{where}的数值不对（{tensor_difference(expected, got)}）"
    if isinstance(expected, float):
        if (
            isinstance(got, (int, float))
            and not isinstance(got, bool)
            and math.isclose(got, expected, rel_tol=1e-4, abs_tol=1e-6)
        ):
            return None
        if isinstance(got, float):
            want, actual = number_pair(expected, got)
            return f"{where}应约为 {want}，实际是 {actual}"
        return f"{where}应约为 {number_text(expected)}，实际是 {_short(got)}"
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)):
            return f"{where}应是{_kind(expected)}，实际是 {type(got).__name__}"
        if len(got) != len(expected):
            return f"{where}应有 {len(expected)} 项，实际有 {len(got)} 项"
        for i, (e, g) in enumerate(zip(expected, got)):
            if reason := compare(e, g, f"{where}[{i}]"):
                return reason if ZERO_BASED in reason else reason + ZERO_BASED
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict) or set(map(str, got)) != set(map(str, expected)):
            return f"{where}应是键为 {sorted(map(str, expected))} 的字典"
        got = {str(k): v for k, v in got.items()}
        return next((r for k in expected if (r := compare(expected[k], got[str(k)], f"{where}[{k!r}]"))), None)
    if type(got) is not type(expected) or got != expected:
        return f"{where}应为 {_short(expected)}，实际是 {_short(got)}"
    return None


def judge(lesson: Lesson, cases: list, expected: list, result: dict) -> tuple[str, str]:
    """由子进程交回、已核对过格式的 result 作出判定：(判定, 中文说明)。

    result 是 {"status": 失败判定, "message": ...}，或 {"status": "ok", "calls": [(第一次, 第二次, 快照)]}
    （见 reply.read_answers；每四个用例里的第一个调用了两次）。每次调用的结果都要与参考输出相同（本课 check.py 有 compare 时用它；
    该 raise 的用例要 raise 同一种异常）。“不改输入、不与输入共用内存”由这里对照发出的用例判定：runner 每次调用都从
    用例的字节新建参数，调用一返回就给参数拍快照（FRESH_RESULT 的课改写结果之后再拍一张），快照与用例不同就不通过
    （_argument_problem）。这些快照是学习者的进程拍的：专门在自己的进程里拆 runner 的代码能伪造它（见 docs/sandbox.md），
    普通的 solve——哪怕在下一次调用开头把上一次的输入改回去——瞒不过。子进程失败时，check.py 的 explain(消息)
    可以在前面补一句说明错在哪里。
    """
    check = lesson_check(lesson)
    if result["status"] != "ok":
        message = result["message"] or "solve 还没有补全"
        explain = getattr(check, "explain", None)
        hint = explain(message) if explain and result["status"] == "crashed" else None
        if not hint and result["status"] == "crashed":
            hint = error_hint(message)  # torch 的英文报错前面先说一句中文
        return result["status"], (f"{hint}\n{message}" if hint else message)
    cmp = getattr(check, "compare", compare)
    fresh = getattr(check, "FRESH_RESULT", False)
    for i, (args, want, (got, again, shots)) in enumerate(zip(cases, expected, result["calls"])):
        reason = _difference(cmp, want, got)
        if not reason and _difference(cmp, want, again):
            reason = (
                "返回的张量与上一次调用的结果共用内存（返回了缓存里的同一个张量？）：批改程序改写了第一次调用的结果，"
                "再用同样的参数调用一次，结果就变了。每次都要返回一个新张量"
                if fresh
                else "用同样的参数再调用一次 solve，结果就不同了：solve 在两次调用之间留下了状态（全局变量、缓存）？"
                "同样的输入要得到同样的结果"
            )
        reason = reason or _argument_problem(args, shots) or _saved_problem(check, args, shots)
        if reason:
            shown_want, shown_got = previews(want, got)
            return "wrong", (
                f"第 {i + 1}/{len(cases)} 个用例不对：{reason}\n"
                f"  输入：{_short(args)}\n  应为：{shown_want}\n  实际：{shown_got}"
            )
    return "passed", f"可见检查与 {len(cases)} 个随机用例的差分检查全部通过"


def _argument_problem(args, shots) -> str | None:
    """每次调用之后的快照与批改程序发出的参数对照（快照见 runner.differential）：调用之后就不同，是 solve 改了输入；
    改写了结果之后才不同，是结果与这个参数共用内存。都相同时为 None。"""
    for after, touched, _ in shots:
        if (k := changed_argument(args, after)) is not None:
            return (
                f"solve 改动了传进来的第 {k + 1} 个参数（原地的 +=、x[...] = …）："
                f"要返回新的结果，输入保持原样（后面的代码还要用它）"
            )
        if touched is not None and (k := changed_argument(args, touched)) is not None:
            return (
                f"返回的张量与传进来的第 {k + 1} 个参数共用内存（返回了它本身或它的视图）：批改程序改写了结果，"
                f"这个参数跟着变了。要返回一个新张量（比如 torch.zeros_like 新建，或 .clone()），"
                f"不然调用者改动结果时会连输入一起改掉"
            )
    return None


def _saved_problem(check, args, shots) -> str | None:
    """check.py 的 saved_problem(用例, 存档列表)：runner 交回每次调用经 torch.save 存下的字节（runner._capture_saves），
    这里——另一个进程——用 torch.load(..., weights_only=True) 读回来交给它；读不回来的是 wire.Unsupported。
    没有 saved_problem 的课为 None。"""
    judge_saves = getattr(check, "saved_problem", None)
    if judge_saves is None:
        return None
    for _, _, saved in shots:
        loaded = [_load_saved(data) for data in saved] if isinstance(saved, list) else []
        if problem := judge_saves(args, loaded):
            return problem
    return None


def _load_saved(data):
    """一份存档的字节（一维 uint8 张量）读回来的对象：只认 weights_only=True 读得回来的（张量、数、字符串、
    列表、字典），别的什么也不执行；读不回来时是 wire.Unsupported（写明原因）。"""
    if not isinstance(data, torch.Tensor) or data.dtype != torch.uint8 or data.dim() != 1:
        return wire.Unsupported("不是存档的字节")
    try:
        return torch.load(io.BytesIO(data.numpy().tobytes()), weights_only=True)
    except Exception as e:  # 存档是学习者的进程写的：读不回来只是它的问题
        return wire.Unsupported(f"weights_only=True 读不回来的存档（{type(e).__name__}）")


def _difference(cmp, want, got) -> str | None:
    """一次调用的结果与参考输出哪里不同（None：相同）。"""
    try:
        if isinstance(want, wire.Raised) or isinstance(got, wire.Raised):
            return _raise_problem(want, got)
        return cmp(want, got)
    except Exception as e:  # 交回的值合乎格式，比较时却出了错：也只是答案不对
        return f"结果无法与参考答案比较（{type(e).__name__}：{e}）"


def _raise_problem(want, got) -> str | None:
    """一边（或两边）是 wire.Raised 时的比较：同一种异常算对。"""
    expected = want.name if isinstance(want, wire.Raised) else None
    actual = got.name if isinstance(got, wire.Raised) else None
    if expected == actual:
        return None
    if actual is None:
        return f"这个用例应当 raise {expected}，solve 却返回了 {_short(got)}"
    return f"这个用例不该 raise，应返回 {_short(want)}，solve 却 raise 了 {actual}"


def _identical(a, b) -> bool:
    """a 与 b 完全相同：类型、形状、dtype 与每个值（NaN 与 NaN 算相同；元组与列表不分，传输时不保留）。"""
    if isinstance(a, torch.Tensor):
        if not (isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype):
            return False
        same = a == b
        if a.is_floating_point():
            same |= a.isnan() & b.isnan()
        return bool(same.all())
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_identical, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_identical(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def changed_argument(before: list, after) -> int | None:
    """调用 solve 之后第一个与调用之前不同的参数的序号（从 0 数）；都没变时为 None。"""
    if not isinstance(after, (list, tuple)) or len(after) != len(before):
        return 0
    return next((k for k, (b, a) in enumerate(zip(before, after)) if not _identical(b, a)), None)
