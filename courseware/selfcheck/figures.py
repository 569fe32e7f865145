"""课文里的数与引来的诗要与记录下来的输出对得上（重算的数对记录也只用这里的一条规则）：./poet verify 与测试用它。

规则只有一条，不用在课文里做任何标记：课文（lessons/NN/README.md，以及 OTHER_TEXTS：仓库的 README.md、两本手册、
data/ 里的两篇说明）里的每一个“数”——带小数点的数、百分数、有效数字三位以上的整数（8192、6,024）——
必须出现在这篇课文的来源里：第 NN 课默认是 lessons/NN/output.txt（./poet verify --record 写的实验输出），
别的来源（./poet eval 的记录 results/eval.json、模型的训练日志 results/model-log.txt、另一课的输出、
data/MODEL.md……）写在课文旁的配置里（第 NN 课是 lessons/NN/figures.toml，别的课文是 docs/figures/<文件名>.toml）。

“出现”的意思：来源里有一个数，四舍五入到课文写的小数位数后等于课文的数（课文的 0.97 对得上输出的 0.9702；
课文写的位数不能比输出多）；百分数与小数互认（88.5% 对得上 0.885）；带负号的数要负号也对上。
代码块（```python、```bash）和行内代码（`…`）里的数不算：代码由 excerpts.py 另查，命令行参数不是结果。

引来的诗也一样：课文里一首诗或一联——两句以上、每句同样是 5 个或 7 个汉字、句末是“，。？！；”——写在
引号“…”或「…」里，或独占一行（前后没有别的汉字，如图解里的一行），就当作引用了一次运行写出的诗，
它的每一句都要按次序出现在来源里（空白不算，相邻两句之间最多隔 POEM_GAP 个字：记录里一句一行、前面带
“第 1 句：”也认）。模型写的诗照记录抄，一个字也不能改；人写的诗（李白、王之涣……）记录里没有时，
照样写进 allow 并说明出处。行内代码（`…`）与 json、python 代码块里的不算。

不是来自运行的数（年份、手算例子里的数、公式的常数）写进配置的 allow 列表，每条是课文某一行里
一字不差的一段文字（全文只能出现一次）和理由；这一段里的数都放行。数改了，这段文字就对不上，放行随之失效，照样报错；
一条 allow 在课文里找不到、或找到的那段里既没有数也没有诗，也报错——放行的条目不会悄悄过期。

课文的数对记录只认四舍五入（:meth:`Number.rounds_to`），差在最后一位也是过期：课文写的就是记录里的那个数。
带容差的规则只给重算的数：换一种 CPU 重跑，最后一位动了，不算输出变了。重算的数（实验现在印的、网站的图现算的）对记录只用那一条规则：:func:`agrees`，逐行比输出用 :func:`same_line`，
在网站的图的文字里找用 :func:`contains`。
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from poetry_gpt.common import ROOT, DataFileError, read_toml

from ..catalogue import CATALOGUE

RECORDS = ROOT / "results"
"""课文之外、测试对照的记录：./poet eval 的输出与训练日志（早先模型的记录在 results/history/，只供 data/MODEL.md 引用）。"""
OTHER_TEXTS = ("README.md", "docs/teaching.md", "docs/sandbox.md", "CONTRIBUTING.md", "data/MODEL.md", "data/SOURCE.md")
MEASURED = re.compile(r"⟨[^⟩]*⟩")
"""记录里随机器而变的量（计时）写成 ⟨0.327⟩：比较输出时不看它，课文也不能引它。"""
HEADER = "# "
"""记录文件开头以“# ”起头的几行是说明（机器、线程数），不是输出，里面的数不算来源。"""

_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.\-−+])([-−](?=\d))?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
    r"(%|\s?×\s?10[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|e[-+]?\d+)?(?![A-Za-z0-9_]|\.\d)"
)
_VERSION = re.compile(r"\d+(?:\.\d+){2,}")  # 2.0.1 这样的版本号不是数
_SOURCE_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])[-−]?\d+(?:,\d{3})*(?:\.\d+)?(?:e[-+]?\d+)?%?")
_SUPERSCRIPT = str.maketrans("⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹", "-+0123456789")


# 引来的诗：怎样认出、怎样在记录里找

_HAN = "\u3400-\u9fff"
_POEM = re.compile(
    rf"(?<![{_HAN}])(?:(?:[{_HAN}]{{5}}[，。？！；]){{2,}}|(?:[{_HAN}]{{7}}[，。？！；]){{2,}})(?![{_HAN}])"
)
_VERSE = re.compile(rf"[{_HAN}]+[，。？！；]")
POEM_GAP = 40
"""引来的诗相邻两句在来源里最多隔这么多个字（去掉空白之后）：“第 2 句：”这样的编号放得下，别的诗放不下。"""
QUOTE_RULE = "模型写的诗照记录抄，一个字也不改；人写的诗记录里没有"
"""对不上时消息里的说明（后面接“就在 figures.toml 里放行”）。"""


def blank_inline(text: str) -> str:
    """把一行课文里的行内代码与链接地址换成同样长的空白（位置不变）：里面的数与诗不算。"""
    text = re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), text)
    return re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group()), text)


def prose_lines(markdown: str):
    """课文里要查的行：(行号（从 1 数）, 去掉行内代码与链接地址的这一行)。```text 图解与正文里的行；
    ```python、```json、```bash 等代码块里的不算（figures 与引诗共用）。"""
    fence = None
    for n, line in enumerate(markdown.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fence = None if fence is not None else line.lstrip()[3:].strip()
            continue
        if fence in (None, "", "text"):
            yield n, blank_inline(line)


@dataclass(frozen=True)
class Quote:
    """课文里引来的一首诗或一联：在第 line 行，start:end 是它在这一行里的位置。"""

    text: str
    line: int
    start: int
    end: int


def poems_in(markdown: str) -> list[Quote]:
    """课文里引来的诗（规则见模块说明）：引号里的，或独占一行的；json、python 等代码块与行内代码里的不算。"""
    found = []
    for n, plain in prose_lines(markdown):
        for m in _POEM.finditer(plain):
            before, after = plain[: m.start()], plain[m.end() :]
            quoted = before.rstrip().endswith(("“", "「"))
            alone = not re.search(f"[{_HAN}]", before) and not re.search(f"[{_HAN}]", after)
            if quoted or alone:
                found.append(Quote(m.group(), n, m.start(), m.end()))
    return found


def quoted_in(poem: str, text: str) -> bool:
    """poem 的每一句是否按次序出现在 text 里（空白已去掉），相邻两句之间最多隔 POEM_GAP 个字。"""
    verses = _VERSE.findall(poem)
    start = text.find(verses[0])
    while start >= 0:
        at = start + len(verses[0])
        for verse in verses[1:]:
            found = text.find(verse, at)
            if found < 0 or found - at > POEM_GAP:
                break
            at = found + len(verse)
        else:
            return True
        start = text.find(verses[0], start + 1)
    return False


# 课文里的数


@dataclass(frozen=True)
class Number:
    """一个数：value 是十进制的值（百分数已除以 100），places 是写出来的小数位数（百分数另加 2）。"""

    written: str
    value: Decimal
    places: int
    signed: bool = False

    def rounds_to(self, figure: Number) -> bool:
        """这个（来源里的）数四舍五入到 figure 的位数是不是 figure；figure 没写负号时只比绝对值。"""
        if self.places < figure.places:
            return False
        value = self.value if figure.signed else abs(self.value)
        return abs(value - figure.value) * 2 <= Decimal(1).scaleb(-figure.places)


def parse_number(written: str) -> Number:
    """“6,024”“−0.38”“88.5%”“2.5e-10” → Number。"""
    text = written.replace(",", "").replace("−", "-")
    if "×" in text:  # 1.5 × 10⁻⁸
        mantissa, _, power = text.partition("×")
        text = f"{mantissa.strip()}e{power.strip()[2:].translate(_SUPERSCRIPT)}"
    percent = text.endswith("%")
    text = text.rstrip("%")
    mantissa, _, exponent = text.partition("e")
    places = len(mantissa.partition(".")[2]) - int(exponent or 0)
    value = Decimal(text)
    if percent:
        value, places = value / 100, places + 2
    return Number(written, value, places, text.startswith("-"))


@dataclass(frozen=True)
class Figure:
    """课文里的一个数：在第 line 行（从 1 数），start:end 是它在这一行里的位置。"""

    number: Number
    line: int
    start: int
    end: int


def figures_in(markdown: str) -> list[Figure]:
    """课文里要查的数：```text 图解与正文里的；```python、```bash 等代码块与行内代码里的不算。"""
    found = []
    for n, prose in prose_lines(markdown):
        plain = _VERSION.sub(lambda m: " " * len(m.group()), prose)
        for m in _NUMBER.finditer(plain):
            sign, whole, fraction, percent = m.groups()
            digits = whole.replace(",", "").lstrip("0")
            if fraction is None and not percent and len(digits.rstrip("0")) < 3:
                continue  # 两位以内的整数（课号、步数、几首诗）太常见，不查
            found.append(Figure(parse_number(m.group()), n, m.start(), m.end()))
    return found


@dataclass
class Source:
    """一个来源：路径（相对仓库）与其中的数，每个数记着它在哪一行、这一行去掉数之后的样子（对照新旧输出用）。"""

    path: str
    numbers: list[tuple[Number, int, str, int]] = field(default_factory=list)  # (数, 行号, 骨架, 行内第几个)
    text: str = ""  # 全文去掉空白：课文引来的诗在这里找

    @classmethod
    def read(cls, path: str) -> Source:
        """读一个来源。课文（.md）也可以做来源（第 19 课引 data/MODEL.md 里上一版模型的数），但只算它自己
        查得过的数：它里面过期了的数不能让引用它的课文跟着过关。"""
        source = cls(path)
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return source
        source.text = re.sub(r"\s+", "", text)
        if path.endswith(".md") and path not in _READING:
            _READING.add(path)
            try:
                stale = {(s.line, s.figure) for s in check_text(path).stale}
            finally:
                _READING.discard(path)
            lines = text.splitlines()
            for fig in figures_in(text):
                if (fig.line, fig.number.written) not in stale:
                    source.numbers.append((fig.number, fig.line, skeleton(lines[fig.line - 1]), fig.start))
            return source
        for n, line in enumerate(text.splitlines(), start=1):
            if line.startswith(HEADER) or "sha256" in line or '"recorded"' in line:  # 说明，不是输出
                continue
            line = MEASURED.sub("⟨⟩", line)
            tokens = list(_SOURCE_NUMBER.finditer(line))
            shape = skeleton(line)
            for i, m in enumerate(tokens):
                number = parse_number(m.group())
                if path.endswith(".json"):  # JSON 里的数是原值（0.63 就是 0.63），不是四舍五入到两位的结果
                    number = Number(number.written, number.value, 99, number.signed)
                source.numbers.append((number, n, shape, i))
        return source


_READING: set[str] = set()  # 正在当作来源读的课文：互相引用时不再往下查


def skeleton(line: str) -> str:
    """一行输出去掉数、压掉空白与表格线之后的样子：新旧两次输出里“同一行”靠它认出来。"""
    text = _SOURCE_NUMBER.sub("#", line)
    return re.sub(r"[\s│┃|━─┏┓┗┛┡┩└┘┌┐╇╋┳┻┼├┤]+", " ", text).strip()


@dataclass(frozen=True)
class Allow:
    """配置里的一条放行：课文里一字不差的一段文字 text，与理由 reason。"""

    text: str
    reason: str


@dataclass
class TextConfig:
    sources: list[str]
    allow: list[Allow]
    config: str  # 配置文件的路径（相对仓库）


class FiguresError(ValueError):
    """配置文件写错了；消息是中文。"""


def text_files() -> list[str]:
    """要查的课文（相对仓库的路径）：写好的每一课，再加 OTHER_TEXTS。"""
    return [f"lessons/{l.code}/README.md" for l in CATALOGUE if l.available] + list(OTHER_TEXTS)


def config_for(text: str) -> TextConfig:
    """课文的配置：来源与放行列表。第 NN 课的默认来源是 lessons/NN/output.txt。"""
    path = Path(text)
    if path.parent.parent.name == "lessons":  # lessons/NN/README.md（测试里也可以是别处的一份拷贝）
        config, sources = path.parent / "figures.toml", [str(path.parent / "output.txt")]
    else:
        config, sources = Path("docs") / "figures" / f"{path.name}.toml", []
    data = {}
    if (ROOT / config).is_file():
        try:
            data = read_toml(ROOT / config)
        except DataFileError as e:
            raise FiguresError(str(e)) from None
    extra = data.get("sources", [])
    allow = data.get("allow", [])
    if not (isinstance(extra, list) and all(isinstance(s, str) for s in extra)):
        raise FiguresError(f"{config}：sources 应是路径的列表。")
    if not (
        isinstance(allow, list)
        and all(
            isinstance(a, dict)
            and set(a) == {"text", "reason"}
            and all(isinstance(v, str) and v.strip() for v in a.values())
            for a in allow
        )
    ):
        raise FiguresError(f"{config}：每条 [[allow]] 要有而且只有 text 与 reason 两项（都是非空的文字）。")
    missing = [s for s in extra if not (ROOT / s).is_file()]
    if missing:
        raise FiguresError(f"{config}：来源 {'、'.join(missing)} 不存在。")
    return TextConfig(sources + extra, [Allow(a["text"], a["reason"]) for a in allow], str(config))


@dataclass(frozen=True)
class Stale:
    """一个对不上的数（或一条失效的放行）：path:line，message 是给维护者看的中文。"""

    path: str
    line: int
    figure: str
    message: str
    nearest: str | None = None  # 来源里现在数值最近的数（按课文的写法）

    def __str__(self) -> str:
        return f"{self.path}:{self.line}：{self.message}"


@dataclass
class TextReport:
    path: str
    checked: int = 0  # 与来源对上的数
    allowed: int = 0  # 放行的数
    stale: list[Stale] = field(default_factory=list)


def nearest(figure: Number, sources: list[Source]) -> str | None:
    """来源里与 figure 数值最近的数（按 figure 的位数写出），给错误消息用。"""
    best = None
    for source in sources:
        for number, *_ in source.numbers:
            value = number.value if figure.signed else abs(number.value)
            gap = abs(value - figure.value)
            if number.places >= figure.places and (best is None or gap < best[0]):
                best = (gap, number)
    return None if best is None else shown(best[1], figure)


def shown(number: Number, like: Number) -> str:
    """把 number 按 like 的写法（位数、百分号、千位逗号）写出来：旧的 0.920 → 新的 0.922。"""
    if "e" in like.written:  # 2.5e-10 这样的写法：同样几位有效数字
        digits = len(like.written.partition("e")[0].partition(".")[2])
        return f"{number.value if like.signed else abs(number.value):.{digits}e}".replace("e-0", "e-")
    percent = like.written.endswith("%")
    value = number.value * 100 if percent else number.value
    places = like.places - 2 if percent else like.places
    if not like.signed:
        value = abs(value)
    text = f"{value:,.{max(places, 0)}f}" if "," in like.written else f"{value:.{max(places, 0)}f}"
    if like.written.startswith("−"):
        text = text.replace("-", "−")
    return text + ("%" if percent else "")


def _allowed_spans(
    config: TextConfig, lines: list[str], report: TextReport, used: set[Allow]
) -> dict[int, list[tuple[int, int, Allow]]]:
    """课文的各行里每条放行对上的那一段：行号 → [(起, 止, 放行)]。对上不止一处的放行记进 report.stale
    （也记进 used：它已经报过错，不再报“找不到”）。"""
    spans: dict[int, list[tuple[int, int, Allow]]] = {}
    for allow in config.allow:
        places = [
            (n, start)
            for n, line in enumerate(lines, start=1)
            for start in range(len(line))
            if line.startswith(allow.text, start)
        ]
        if len(places) > 1:  # 一条放行只管一处：否则一段短短的“1.5”会放过全文每一个 1.5
            where = "、".join(f"第 {n} 行" for n, _ in places)
            report.stale.append(
                Stale(
                    config.config,
                    0,
                    "",
                    f"放行的“{allow.text}”在 {report.path} 里出现了 {len(places)} 次（{where}）：写长一点，让它只对上一处",
                )
            )
            used.add(allow)
            continue
        for n, start in places:
            spans.setdefault(n, []).append((start, start + len(allow.text), allow))
    return spans


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


def check_text(path: str, sources: list[Source] | None = None, text: str | None = None) -> TextReport:
    """查一篇课文（相对仓库的路径）里的每一个数。sources 不给就读配置里写的来源（记录下来的输出）；
    text 不给就读文件（测试用它查改过一个数的课文）。

    Raises:
        FiguresError: 配置写错了。
    """
    config = config_for(path)
    if sources is None:
        sources = [Source.read(s) for s in config.sources]
    report = TextReport(path)
    lines = ((ROOT / path).read_text(encoding="utf-8") if text is None else text).splitlines()
    used: set[Allow] = set()
    spans = _allowed_spans(config, lines, report, used)
    names = "、".join(s.path for s in sources)
    for fig in figures_in("\n".join(lines)):
        covering = [a for s, e, a in spans.get(fig.line, []) if s <= fig.start and fig.end <= e]
        if covering:
            report.allowed += 1
            used.update(covering)
            continue
        if any(number.rounds_to(fig.number) for source in sources for number, *_ in source.numbers):
            report.checked += 1
            continue
        near = nearest(fig.number, sources)
        hint = f"；现在印出的数里最近的是 {near}" if near is not None else ""
        report.stale.append(
            Stale(
                path,
                fig.line,
                fig.number.written,
                f"课文写的 {fig.number.written} 不在 {names} 里{hint}。"
                f"数变了就改课文；它本来就不是来自运行的（年份、手算的例子），就在 {config.config} 里放行",
                near,
            )
        )
    for poem in poems_in("\n".join(lines)):
        covering = [a for s, e, a in spans.get(poem.line, []) if s <= poem.start and poem.end <= e]
        used.update(covering)
        if covering:
            report.allowed += 1
        elif any(quoted_in(poem.text, source.text) for source in sources):
            report.checked += 1
        else:
            why = f"课文引的诗“{poem.text}”不在 {names} 里（逐句按次序找）"
            report.stale.append(
                Stale(path, poem.line, "", f"{why}。{QUOTE_RULE}，就在 {config.config} 里放行并写明出处")
            )
    for allow in config.allow:
        if allow not in used:
            report.stale.append(
                Stale(
                    config.config,
                    0,
                    "",
                    f"放行的“{allow.text}”在 {path} 里找不到，或那一段里既没有数也没有诗：课文改了，就删掉或改写这一条",
                )
            )
    return report


def check_all() -> list[TextReport]:
    """查全部课文（见 :func:`text_files`）。"""
    return [check_text(path) for path in text_files()]


def candidate(figure: Number, old: Source, new: Source) -> str | None:
    """重新记录之后给一个候选的新值：figure 在旧记录里对上的那个数，在新记录里同一行（骨架相同、
    同样是第几次出现）、同一个位置上现在是多少。对不上（旧记录里也没有、或那一行不见了）时返回 None。"""
    hits = [(shape, i, n) for number, n, shape, i in old.numbers if number.rounds_to(figure)]
    if not hits:
        return None
    shape, index, line = hits[0]
    rank = len({n for _, n, s, _ in old.numbers if s == shape and n < line})  # 这种行的第几次出现
    rows = sorted({n for _, n, s, _ in new.numbers if s == shape})
    if rank >= len(rows):
        return None
    for number, n, s, i in new.numbers:
        if n == rows[rank] and i == index:
            return shown(number, figure)
    return None
