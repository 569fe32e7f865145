"""两种中文折行在课文上比一比：手写的规则（下面的 hand_atoms，课程以前的做法），对 Unicode 的断行规则
UAX #14（uniseg；课程现在用的 labs.fold_lines）。

把每课 README.md 的每一段正文（不含代码块、表格、标题）在给定的宽度里各折一遍，数折得不好的行：

- 行首是收尾的标点（，。、）》” 等）、行尾是开头的标点（（《“ 等）；
- 孤字：一段的最后一行只剩一个字（加上它后面的标点）；
- 拆开的词：折行处两边都是拉丁字母、数字或 ._ 这样的字符（0.893、first_line 被拆成两行）；
- 超宽：一行比宽度还宽。

    .venv/bin/python bench/line_breaking.py [--widths 60 80] [--json]
"""

from __future__ import annotations

import json
import re

from rich.cells import cell_len

from courseware.catalogue import load_manifest
from courseware.cli.parser import ChineseParser, positive_int
from poetry_gpt.labs import fold_lines

_CODE = re.compile(r"`[^`]*`")
_WORD = re.compile(r"[0-9A-Za-z_.]")


def paragraphs(markdown: str) -> list[str]:
    """README 里的正文段：空行分段，跳过代码块、表格、标题、图片与 HTML 行；一段里的换行接起来。"""
    out, fenced = [], False
    for block in re.split(r"\n\s*\n", markdown):
        lines = block.strip().split("\n")
        if any(line.lstrip().startswith("```") for line in lines):
            fenced ^= sum(line.lstrip().startswith("```") for line in lines) % 2 == 1
            continue
        if fenced or not lines[0] or lines[0].lstrip()[:1] in "#|<!>":
            continue
        out.append("".join(line.strip() for line in lines))
    return out


CLOSING = set("，。、；：！？）》」』”’…,.;:!?)]}%")
"""不放在一行开头的标点：折行时跟着前一个字走。"""
OPENING = set("（《「『“‘([{")
"""不放在一行末尾的标点：跟着后一个字走。"""
PHRASE_END = set("，。、；：！？ ·/")


def hand_atoms(line: str, phrase: bool) -> list[tuple[int, int]]:
    """手写的规则（课程换成 UAX #14 以前 labs.fold_atoms 的做法）：一行文字 → 不可拆开的小段 [(开始, 结束), …]（字符下标），一个空格也是一段。

    不拆的：连在一起的拉丁字母、数字与符号（first_line、groups.get(g)、0.893、--top-k）；标点跟着它该跟的字。
    phrase=False（正文）：相邻的两个汉字之间可以折行；phrase=True（标题、课名）：只在标点与空格后折行。
    """
    atoms: list[tuple[int, int]] = []
    start = None
    for i, ch in enumerate(line):
        if ch == " ":
            if start is not None:
                atoms.append((start, i))
            atoms.append((i, i + 1))
            start = None
            continue
        if start is None:
            start = i
            continue
        prev = line[i - 1]
        if ch in CLOSING or prev in OPENING:
            glue = True
        elif phrase:
            glue = prev not in PHRASE_END
        else:
            glue = cell_len(ch) == 1 and cell_len(prev) == 1  # 同一段拉丁字符：smoothed.sum(dim=1,
        if not glue:
            atoms.append((start, i))
            start = i
    if start is not None:
        atoms.append((start, len(line)))
    return atoms


def hand_lines(text: str, width: int, phrase: bool = False) -> list[tuple[int, int]]:
    """把 text 折成每行不超过 width 格，返回每一行在 text 里的 (开始, 结束)。

    只在 hand_atoms 的边界折行，折行处的空格去掉；一段本身比 width 还长（很长的路径）时才在段里硬折。"""
    lines: list[tuple[int, int]] = []
    offset = 0
    for raw in text.split("\n"):
        start = end = offset
        used = 0
        for a, b in hand_atoms(raw, phrase):
            a, b = a + offset, b + offset
            w = cell_len(text[a:b])
            if used + w <= width or (text[a:b] == " " and used == 0 and end == start):
                used, end = used + w, b
                continue
            if text[a:b] == " ":  # 折行处的空格不要
                lines.append((start, end))
                start = end = b
                used = 0
                continue
            if end > start:
                lines.append((start, end))
            start = end = a
            used = 0
            while w > width:  # 硬折：只有一段比整行还宽时
                cut = a
                while cut < b and cell_len(text[a : cut + 1]) <= width:
                    cut += 1
                lines.append((a, cut))
                a = start = end = cut
                w = cell_len(text[a:b])
            used, end = w, b
        lines.append((start, end))
        offset += len(raw) + 1
    return lines


def faults(text: str, spans: list[tuple[int, int]], width: int) -> dict[str, int]:
    """一段折好的行里各种毛病各有几处。"""
    rows = [text[a:b] for a, b in spans]
    count = dict.fromkeys(("lines", "closing_first", "opening_last", "widow", "split_word", "overflow"), 0)
    count["lines"] = len(rows)
    for i, row in enumerate(rows):
        count["closing_first"] += i > 0 and row[:1] in CLOSING
        count["opening_last"] += i < len(rows) - 1 and row[-1:] in OPENING
        count["overflow"] += cell_len(row) > width
    for (_, end), (start, _) in zip(spans, spans[1:]):
        count["split_word"] += end == start and bool(_WORD.match(text[end - 1])) and bool(_WORD.match(text[start]))
    last = rows[-1].rstrip("".join(CLOSING)) if len(rows) > 1 else ""
    count["widow"] += len(last) == 1
    return count


def measure(widths: list[int]) -> dict:
    texts = [
        p
        for lesson in load_manifest()[1]
        for p in paragraphs((lesson.folder / "README.md").read_text(encoding="utf-8"))
    ]
    breakers = {
        "hand": hand_lines,
        "uax14": fold_lines,
        "uax14_sealed": lambda text, width: fold_lines(text, width, sealed=[m.span() for m in _CODE.finditer(text)]),
    }
    result = {"paragraphs": len(texts), "widths": {}}
    for width in widths:
        wide = [t for t in texts if cell_len(t) > width]
        totals = {}
        for name, breaker in breakers.items():
            total: dict[str, int] = {}
            for text in wide:
                for key, n in faults(text, breaker(text, width), width).items():
                    total[key] = total.get(key, 0) + n
            totals[name] = total
        result["widths"][width] = {"folded_paragraphs": len(wide), **totals}
    return result


def main() -> None:
    parser = ChineseParser(description="两种中文折行在课文上比一比：手写规则对 UAX #14")
    parser.add_argument("--widths", type=positive_int, nargs="+", default=[60, 80], metavar="列数")
    parser.add_argument("--json", action="store_true", help="只输出 JSON")
    args = parser.parse_args()
    result = measure(args.widths)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return
    names = {
        "lines": "行数",
        "closing_first": "行首是收尾标点",
        "opening_last": "行尾是开头标点",
        "widow": "孤字（末行一个字）",
        "split_word": "拆开的数或拉丁词",
        "overflow": "超宽的行",
    }
    print(f"课文正文 {result['paragraphs']} 段")
    for width, r in result["widths"].items():
        print(f"\n宽 {width} 列（要折的 {r['folded_paragraphs']} 段）：手写规则 / UAX #14 / UAX #14 且行内代码不折")
        for key, label in names.items():
            pad = " " * (22 - cell_len(label))  # 汉字占两格：按格数补齐
            print(f"  {label}{pad}{r['hand'][key]:>8}{r['uax14'][key]:>8}{r['uax14_sealed'][key]:>8}")


if __name__ == "__main__":
    main()
