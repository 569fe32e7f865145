"""采样设置：top-k / top-p 的截断与并列的规则，超出范围的设置被拒绝。"""

import pytest
import torch

from poetry_gpt.sampling import SamplingConfig, filter_logits


def test_filter_logits_top_k_and_top_p():
    logits = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05]))
    kept = lambda t: torch.isfinite(t).tolist()  # noqa: E731
    assert kept(filter_logits(logits, top_k=2)) == [True, True, False, False]
    assert kept(filter_logits(logits, top_p=0.7)) == [True, True, False, False]
    assert kept(filter_logits(logits, top_p=0.81)) == [True, True, True, False]
    assert kept(filter_logits(logits, top_p=0.1)) == [True, False, False, False]
    assert kept(filter_logits(logits)) == [True] * 4


@pytest.mark.parametrize(
    "option, message",
    [
        (dict(temperature=float("nan")), "有限数"),
        (dict(temperature=float("inf")), "有限数"),
        (dict(top_p=float("nan")), "top-p"),
        (dict(top_p=float("inf")), "top-p"),
        (dict(top_p=0), "top-p"),
        (dict(top_k=-1), "top-k"),
        (dict(temperature=1e-40), "在 0.01 到 10 之间"),
        (dict(temperature=10.5), "在 0.01 到 10 之间，收到 10.5"),
        (dict(temperature=0.001), "几乎没有分别，要这样就给 0"),  # 课程定的下限：再小就等于贪心，不是除法溢出
        (dict(temperature=-1.0), "不能是负数：0 表示每步取最可能的字"),
    ],
)
def test_sampling_settings_out_of_range_are_refused(option, message):
    """范围只查一次：SamplingConfig 建的时候（./poet write 的 --temperature 等用 settings 里同样的范围）。"""
    with pytest.raises(ValueError, match=message):
        SamplingConfig(**option)


def kept(t):
    return torch.isfinite(t).tolist()


def test_top_k_keeps_every_tie_with_the_kth_logit():
    logits = torch.tensor([3.0, 2.0, 1.0, 2.0, 0.0])
    assert kept(filter_logits(logits, top_k=2)) == [True, True, False, True, False]  # 留下 3 个
    assert kept(filter_logits(logits, top_k=99)) == [True] * 5


def test_top_p_ties_at_the_boundary_keep_the_smaller_ids():
    # 四个并列的字，概率正好各 1/4：排在前面的概率之和是 0、1/4、1/2、3/4，都能精确表示
    logits = torch.zeros(8)
    logits[4:] = -60.0
    for p, n in ((0.5, 2), (0.5000001, 3), (0.25, 1), (0.75, 3), (0.01, 1)):
        out = kept(filter_logits(logits, top_p=p))
        assert out == [i < n for i in range(8)], (p, out)
    # 与第 k 大分数并列的字留下后，top-p 在剩下的字里重新归一化
    logits = torch.tensor([0.0, 1.0, 1.0, 1.0, 1.0, -5.0])
    assert kept(filter_logits(logits, top_k=4, top_p=0.5)) == [False, True, True, False, False, False]
