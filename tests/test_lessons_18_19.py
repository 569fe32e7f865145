"""第 18、19 课：折线图、损失曲线的读取、两课的练习（参考答案与包里的代码一致；错误答案都过不了检查）。"""
import math

import pytest
import torch

from poetry_gpt.labs import plot_rows
from poetry_gpt.metrics import loss_curves


def test_plot_rows_puts_points_where_they_belong():
    grid = plot_rows({"a": [(0, 0.0), (10, 1.0)], "b": [(5, 0.5)]}, hlines={"h": 0.25}, width=11, height=5)
    assert len(grid) == 5 and all(len(r) == 11 for r in grid)
    assert grid[4][0] == (".", 0) and grid[0][10] == (".", 0)    # 第 0 行是最大的 y
    assert grid[2][5] == ("o", 1)                               # 第二条曲线的记号
    assert [c for c, _ in grid[3]] == ["-"] * 11                # 0.25 落在第 3 行
    zoom = plot_rows({"a": [(0, 0.0), (10, 1.0)]}, width=11, height=5, y_limits=(0.5, 1.0))
    assert zoom[0][10] == (".", 0) and all(ch == " " for row in zoom[1:] for ch, _ in row)  # 0.0 在范围外
    with pytest.raises(ValueError):
        plot_rows({"a": []})


def test_loss_curves_of_the_shipped_model_match_its_log():
    curves = loss_curves()
    state = torch.load("data/model.pt", weights_only=True)
    assert curves["eval_poems"] == state["train_config"]["eval_poems"] == 512
    assert len(curves["train"]) == state["step"] == 2800
    assert curves["train"][0][0] == 1 and curves["train"][-1][0] == 2800
    assert curves["val"][0] == [200, pytest.approx(5.4292)] and curves["val"][-1] == [2800, pytest.approx(4.06229)]
    assert [s for s, _ in curves["val"]] == list(range(200, 2801, 200))
    # 从列表读也一样；eval_poems 这时不知道
    from_list = loss_curves(state["log"])
    assert from_list["val"] == curves["val"] and from_list["eval_poems"] is None
