"""实验用的小工具：折线图的点落在该在的格子里，不上色的热图不截断数字。"""

import re

import pytest
from rich.cells import cell_len

from poetry_gpt.labs import plot_rows


def test_plot_rows_puts_points_where_they_belong():
    grid = plot_rows({"a": [(0, 0.0), (10, 1.0)], "b": [(5, 0.5)]}, hlines={"h": 0.25}, width=11, height=5)
    assert len(grid) == 5 and all(len(r) == 11 for r in grid)
    assert grid[4][0] == (".", 0) and grid[0][10] == (".", 0)  # 第 0 行是最大的 y
    assert grid[2][5] == ("o", 1)  # 第二条曲线的记号
    assert [c for c, _ in grid[3]] == ["-"] * 11  # 0.25 落在第 3 行
    zoom = plot_rows({"a": [(0, 0.0), (10, 1.0)]}, width=11, height=5, y_limits=(0.5, 1.0))
    assert zoom[0][10] == (".", 0) and all(ch == " " for row in zoom[1:] for ch, _ in row)  # 0.0 在范围外
    with pytest.raises(ValueError):
        plot_rows({"a": []})


def test_heatmap_without_colour_never_cuts_a_number(capsys, monkeypatch):
    """管道里（没有颜色）放得下时每格两位小数（12 列连同行名放得进 80 列）；终端太窄时改印 0–9 的档位，
    不会出现被截断的“-0.…”；终端再宽，热图也不超过 80 列。"""
    from poetry_gpt import labs

    matrix = [[(i - j) / 12 for j in range(12)] for i in range(12)]
    monkeypatch.setattr(labs.console, "width", 60)
    labs.heatmap(matrix, [str(i) for i in range(12)], [str(j) for j in range(12)])
    narrow = capsys.readouterr().out
    assert "…" not in narrow and "数字 0–9 越大" in narrow and " 9 " in narrow
    for width in (80, 200):
        monkeypatch.setattr(labs.console, "width", width)
        labs.heatmap(matrix, [str(i) for i in range(12)], [str(j) for j in range(12)])
        wide = capsys.readouterr().out
        assert "-0.92" in wide and "…" not in wide
        assert max(cell_len(line) for line in wide.splitlines()) <= 80


def test_long_lines_fold_at_80_columns_between_phrases(capsys, monkeypatch):
    """show 的一行比 80 列长时在逗号、空格处折开，接下去的行缩进两格；数与诗句不拆开，一个字也不丢。"""
    from poetry_gpt import labs

    monkeypatch.setattr(labs.console, "width", 120)
    values = [8.498, 8.375, 8.492, 8.063, 8.032, 8.209, 8.42, 8.7, 8.924, 9.038, 9.143, 9.221]
    labs.show("dropout 0 的验证损失（第 4、8、…、48 步）", values, digits=3)
    labs.show("一首诗", "山月清圆夜未阑，孤光万里照人寒。莫嫌冷澹长相失，只有花枝独自看。" * 2)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and all(cell_len(line) <= 80 for line in lines)
    assert lines[1].startswith("  8.209, ") and lines[3].startswith("  ")
    assert " ".join(line.strip() for line in lines[:2]) == (
        "dropout 0 的验证损失（第 4、8、…、48 步）：[" + ", ".join(f"{v:.3f}" for v in values) + "]"
    )
    assert all(line.rstrip().endswith(("，", "。", ",", "]")) for line in lines[:3:2])
    # 先在分句处折：数与单位不分开；没有分句可折时才在空格处折
    labs.say("第 1 句句尾：可用的韵部 —，还可能的格式 2 种，允许 5993 个（不人一风无山来花有春…）；《山行》写“斜”")
    labs.say("各句后五字 " + "平仄仄平平 两平平仄平 " * 6)
    clauses, spaces = capsys.readouterr().out.split("各句后五字")
    assert clauses.splitlines() == [
        "第 1 句句尾：可用的韵部 —，还可能的格式 2 种，",
        "  允许 5993 个（不人一风无山来花有春…）；《山行》写“斜”",
    ]
    assert all(cell_len(line) <= 80 and "平仄" in line for line in spaces.splitlines())


def test_a_wide_table_is_printed_transposed_rather_than_folded(capsys, monkeypatch):
    """13 列的一行表在 80 列里放不下：转置着印（列名成了第一列），格子里的数一个也不折开。"""
    from poetry_gpt import labs

    monkeypatch.setattr(labs.console, "width", 120)
    steps = [200, *range(2000, 20000, 2000), 18200, 19400]
    labs.table(["步", *steps], [["验证", *(5 - s / 10_000 for s in steps)]], title="验证损失", digits=3)
    lines = capsys.readouterr().out.splitlines()
    assert all(cell_len(line) <= 80 for line in lines)
    assert any(re.search(r"│\s+18200 │\s+3\.180 │", line) for line in lines), lines
    assert "验证" in lines[2] and len(lines) == len(steps) + 5  # 标题、上边、列名、分隔、13 行、下边
