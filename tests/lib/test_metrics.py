"""评价指标：格式、关键词、抄袭率、distinct-n、评估用的开头；损失曲线的读取；二元基线用同一批验证诗。"""

import pytest
import torch

from poetry_gpt.data import default_tokenizer
from poetry_gpt.metrics import copy_rate, distinct_n, eval_prompts, format_ok, keyword_hit, loss_curves
from poetry_gpt.model import ModelConfig, PoetryGPT

TOK = default_tokenizer()


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=48, width=32, n_layers=2, n_heads=2)).eval()


def test_metrics_on_known_poems():
    good = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
    assert format_ok(good, 5) and format_ok(good) and not format_ok(good, 7)
    assert not format_ok("床前明月光，疑是地上霜。举头望明月，")
    assert not format_ok("床前明月光，疑是地上霜。举头望明月，低头思故a。")
    assert not format_ok("床前明月光，疑是地上霜。举头望明月，低头思故乡乡。")
    assert keyword_hit(good, "月霜") and not keyword_hit(good, "月雪")
    assert copy_rate([good], frozenset({"床前明月光", "低头思故乡"})) == 0.5
    assert distinct_n(["月月月月月，月月月月月。月月月月月，月月月月月。"]) == pytest.approx(1 / 16)
    assert distinct_n([good]) == pytest.approx(15 / 16)  # “明月”出现两次
    prompts = eval_prompts(200)
    assert prompts[:4] == [("人", 5), ("人", 7), ("风", 5), ("风", 7)] and prompts[100:] == prompts[:100]
    assert len(prompts) == 200 and len(set(prompts)) == 100 and eval_prompts(20) == prompts[:20]


def test_eval_baseline_uses_the_same_val_poems(model):
    from poetry_gpt.bigram import BigramModel, bigram_baseline
    from poetry_gpt.data import load_poems
    from poetry_gpt.evaluation import evaluate_model

    result = evaluate_model(model, TOK, n_prompts=1, val_poems=40)
    expected = BigramModel.fit(load_poems("train"), TOK).cross_entropy(load_poems("val", 40))
    assert result["val_poems"] == 40
    assert result["bigram_cross_entropy"] == pytest.approx(expected)
    assert result["bigram_cross_entropy"] != pytest.approx(bigram_baseline("val"), abs=1e-3)


def test_eval_reports_three_conditions_on_the_same_poems(model):
    """诗自己的关键词、空的条件区、按 IDF 抽的一个字（第 i 首种子 COURSE_SEED + i）：三个交叉熵各是各的条件区。"""
    from poetry_gpt.common import COURSE_SEED
    from poetry_gpt.data import encode_sample, load_poems
    from poetry_gpt.evaluation import evaluate_model
    from poetry_gpt.loss import mean_cross_entropy
    from poetry_gpt.metrics import drawn_keyword

    val = load_poems("val", 40)
    result = evaluate_model(model, TOK, n_prompts=1, val_poems=40)
    drawn = [drawn_keyword(p["text"], COURSE_SEED + i, TOK) for i, p in enumerate(val)]
    assert all(len(k) == 1 and k[0] in p["text"] for k, p in zip(drawn, val))
    expected = mean_cross_entropy(model, [encode_sample(p, TOK, k) for k, p in zip(drawn, val)], "cpu")
    assert result["val_cross_entropy_drawn_keyword"] == pytest.approx(expected)
    ces = [result[f"val_cross_entropy{s}"] for s in ("", "_no_keywords", "_drawn_keyword")]
    assert len({round(x, 6) for x in ces}) == 3


def test_loss_curves_of_the_shipped_model_match_its_log():
    curves = loss_curves()
    state = torch.load("data/model.pt", weights_only=True)
    assert curves["eval_poems"] == state["train_config"]["eval_poems"] == 512
    # 排定 21,895 步，在第 19,478 步按 Ctrl-C 停下（data/MODEL.md）：日志到那一步为止
    assert len(curves["train"]) == state["step"] == 19478 < state["train_config"]["steps"] == 21895
    assert curves["train"][0][0] == 1 and curves["train"][-1][0] == 19478
    assert curves["val"][0] == [200, pytest.approx(5.15309)] and curves["val"][-1] == [19400, pytest.approx(3.69813)]
    # 每 200 步验证一次；停下的那一步不是 200 的倍数，也不是排定的最后一步，没有验证
    assert [s for s, _ in curves["val"]] == list(range(200, 19478, 200))
    # 从列表读也一样；eval_poems 这时不知道
    from_list = loss_curves(state["log"])
    assert from_list["val"] == curves["val"] and from_list["eval_poems"] is None


def test_eval_reports_progress_batch_by_batch_and_poem_by_poem(model):
    """./poet eval 的进度条靠这个回调：交叉熵按批（三种条件区各一遍，加二元基线），诗按首，一份不多一份不少，
    数一直往上走，每个阶段最后报到的正是总数。"""
    from poetry_gpt.evaluation import CE_BATCH, CROSS_ENTROPY, POEMS, evaluate_model

    calls = []
    result = evaluate_model(
        model, TOK, n_prompts=2, val_poems=CE_BATCH + 1, progress=lambda *call: calls.append(call), drafts=2
    )
    ce = [(done, total) for stage, done, total in calls if stage == CROSS_ENTROPY]
    poems = [(done, total) for stage, done, total in calls if stage == POEMS]
    assert ce == [(i, 3 * 2 + 1) for i in range(3 * 2 + 2)]  # 129 首是两批
    groups = result["reader"]
    written = 2 * result["prompts"] + groups["藏头"]["poems"] + 2 * groups["四个关键词"]["poems"]
    assert poems == [(i, written) for i in range(written + 1)] and written == 2 * 2 + 2 + 2 * 2
    assert calls.index((POEMS, 0, written)) > calls.index((CROSS_ENTROPY, 7, 7))
