"""``./poet eval`` 的“读者看得到的”表：每一行是 :func:`poetry_gpt.metrics.reader_report` 的哪一项、叫什么、怎么写。

数由模型库算（evaluation.evaluate_model 的 reader 与 human），这里只把它们排成字符串：终端里的表
（tables._reader_grid）与 ``./poet eval --markdown`` 的 Markdown 表（data/MODEL.md 里的表）共用 :func:`reader_table`。
"""

from __future__ import annotations

from poetry_gpt.settings import DISTINCT_POEMS

READER_ROWS = (
    ("rhyme", "二、四句押韵（两个不同的字）", "pct"),
    ("same_character_rhyme", "二、四句同一个字收尾", "pct"),
    ("tone_score", "平仄得分（宽式）", "num"),
    ("nian_dui", "粘对全合", "pct"),
    ("char_3", "有字用了 3 次以上的诗", "pct"),
    ("bigram_repeat", "两字组合重复的诗", "pct"),
    ("reused_lines", "与组里别的诗相同的句子", "pct"),
    ("line_repeat", "一句里有字用了两次的诗", "pct"),
    ("unattested_double", "有语料里不叠的叠字的诗", "pct"),
    ("bu_share", "“不”占正文的比例", "pct"),
    ("stock_openings", "以套语开头的句子", "pct"),
    ("distinct_2", f"distinct-2（每组前 {DISTINCT_POEMS} 首）", "num"),
    ("keyword_hit", "给定的字都出现", "pct"),
    ("keyword_counts", "给定的字出现 0/1/2/≥3 次", "dist"),
    ("keyword_3", "有给定的字用了 3 次以上的诗", "pct"),
    ("keyword_twice", "有给定的字用了 2 次以上的诗", "pct"),
    ("format_rate", "格式合格", "pct"),
    ("format_rate_free", "格式合格（--free）", "pct"),
)
"""``./poet eval`` 的“读者看得到的”表：(键, 中文名, 格式)。"""


def reader_table(result: dict) -> tuple[list[str], list[list[str]]]:
    """把 evaluate_model 的 reader 与 human 排成表：表头与各行（字符串），终端表与 Markdown 共用。

    列：五言（模型、人写）、七言（模型、人写）、藏头、四个关键词；没有的数是“–”。
    """
    columns = [
        ("五言", result["reader"]["五言"]),
        ("五言·人", result["human"]["五言"]),
        ("七言", result["reader"]["七言"]),
        ("七言·人", result["human"]["七言"]),
        ("藏头", result["reader"]["藏头"]),
        ("四个关键词", result["reader"]["四个关键词"]),
    ]

    def cell(value, kind) -> str:
        if value is None:
            return "–"
        if kind == "pct":
            return f"{100 * value:.1f}%"
        if kind == "dist":
            return "/".join(f"{100 * v:.0f}" for v in value) + "%"
        return f"{value:.3f}"

    header = ["项目"] + [name + f"（{col['poems']}）" for name, col in columns]
    rows = [
        [label] + [cell(col.get(key) if col["poems"] else None, kind) for _, col in columns]
        for key, label, kind in READER_ROWS
    ]
    return header, rows


def reader_markdown(result: dict) -> str:
    """reader_table 的 Markdown 表（data/MODEL.md 里的表由 ``./poet eval --markdown`` 印出）。"""
    header, rows = reader_table(result)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
