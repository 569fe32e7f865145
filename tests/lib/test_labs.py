"""实验用的小工具：折线图的点落在该在的格子里，不上色的热图不截断数字。"""

import pytest

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
    """管道里（没有颜色）放得下时每格两位小数；终端太窄时改印 0–9 的档位，不会出现被截断的“-0.…”。"""
    from poetry_gpt import labs

    matrix = [[(i - j) / 12 for j in range(12)] for i in range(12)]
    monkeypatch.setattr(labs.console, "width", 80)
    labs.heatmap(matrix, [str(i) for i in range(12)], [str(j) for j in range(12)])
    narrow = capsys.readouterr().out
    assert "…" not in narrow and "数字 0–9 越大" in narrow and " 9 " in narrow
    monkeypatch.setattr(labs.console, "width", 200)
    labs.heatmap(matrix, [str(i) for i in range(12)], [str(j) for j in range(12)])
    wide = capsys.readouterr().out
    assert "-0.92" in wide and "…" not in wide
