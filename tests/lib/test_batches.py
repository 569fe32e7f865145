"""训练的批（poetry_gpt.batches）与律诗材料（data/regulated.txt.gz、corpus.clean_regulated）。"""

import hashlib
import random
from dataclasses import replace

import pytest

from courseware.corpus.build import clean_regulated, held_out_lines, shares_held_out
from poetry_gpt import batches
from poetry_gpt.batches import (
    KEYWORD_COUNTS,
    TrainingSamples,
    draw_keywords,
    keyword_candidates,
    load_regulated,
    regulated_windows,
)
from poetry_gpt.data import BOS, EOS, FUNCTION_CHARS, SEP, BadRecord, default_tokenizer, load_poems, split_lines
from poetry_gpt.train_config import PRESETS

LUSHI = "国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。烽火连三月，家书抵万金。白头搔更短，浑欲不胜簪。"


def test_regulated_windows_start_at_every_couplet():
    windows = regulated_windows(LUSHI)
    assert [split_lines(w) for w in windows] == [
        ["国破山河在", "城春草木深", "感时花溅泪", "恨别鸟惊心"],
        ["感时花溅泪", "恨别鸟惊心", "烽火连三月", "家书抵万金"],
        ["烽火连三月", "家书抵万金", "白头搔更短", "浑欲不胜簪"],
    ]
    assert windows[0].endswith("心。") and len(regulated_windows(LUSHI[:36])) == 2  # 六句：两个窗口


def test_clean_regulated_keeps_regulated_verse_and_rejects_the_rest():
    ident = lambda s: s  # noqa: E731
    none = str.maketrans({})
    assert clean_regulated({"paragraphs": [LUSHI[:24], LUSHI[24:]]}, ident, none) == LUSHI
    assert clean_regulated({"paragraphs": [LUSHI]}, ident, str.maketrans({"簪": "针"})).endswith("针。")
    for text, reason in (
        (LUSHI[:24], "不是六句以上的偶数句"),
        (LUSHI[:42], "不是六句以上的偶数句"),
        (LUSHI[:-6] + "浑欲不胜簪也。", "句子长短不一"),
        (LUSHI.replace("三", "□"), "有缺字"),
        (LUSHI[:-1], "结尾缺少标点"),
    ):
        with pytest.raises(BadRecord) as e:
            clean_regulated({"paragraphs": [text]}, ident, none)
        assert e.value.reason == reason, text


def test_a_poem_sharing_three_lines_with_a_held_out_quatrain_is_a_twin():
    records = [
        {"split": "val", "text": "甲乙丙丁戊，己庚辛壬癸。子丑寅卯辰，巳午未申酉。"},
        {"split": "train", "text": "国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。"},
    ]
    where = held_out_lines(records)
    assert shares_held_out("子丑寅卯辰，巳午未申酉。一二三四五，甲乙丙丁戊，六七八九十，百千万亿兆。", where)
    assert not shares_held_out("子丑寅卯辰，巳午未申酉。一二三四五，六七八九十，百千万亿兆，东西南北中。", where)
    assert not shares_held_out(LUSHI, where)  # 与 train 的诗共句不算


def test_shipped_regulated_verse_has_no_twin_of_a_val_or_test_quatrain():
    regulated = load_regulated()
    assert len(regulated) == 172149
    where = held_out_lines(load_poems())
    assert not [t for t in regulated[::5] if shares_held_out(t, where)]  # 建语料时每首都查过；这里抽五分之一
    assert all(len(split_lines(t)) >= 6 and len(split_lines(t)) % 2 == 0 for t in regulated[::501])


def test_keyword_candidates_are_content_characters_once_with_their_idf():
    tok = default_tokenizer()
    ids, weights = keyword_candidates("月落乌啼霜满天，江枫渔火对愁眠。月", tok)
    chars = [tok.tokens[i] for i in ids]
    assert chars[:3] == ["月", "落", "乌"] and chars.count("月") == 1 and "，" not in chars
    assert not set(chars) & FUNCTION_CHARS
    # 罕见的字权重大：“枫”比“月”少见
    assert weights[chars.index("枫")] > weights[chars.index("月")] > 0


def test_draw_keywords_is_weighted_without_replacement_and_seeded():
    ids, weights = [10, 11, 12, 13], [1.0, 1.0, 1.0, 100.0]
    draws = [draw_keywords(ids, weights, 2, random.Random(s)) for s in range(200)]
    assert all(len(d) == 2 and len(set(d)) == 2 for d in draws)
    assert sum(13 in d for d in draws) > 190  # 权重大的几乎总被抽中
    assert (
        draw_keywords(ids, weights, 9, random.Random(1)) and len(draw_keywords(ids, weights, 9, random.Random(1))) == 4
    )
    assert draw_keywords(ids, weights, 3, random.Random(5)) == draw_keywords(ids, weights, 3, random.Random(5))


@pytest.fixture(scope="module")
def fresh():
    config = replace(PRESETS["regulated"], train_poems=2000, regulated=False, steps=100, batch_size=32)
    return config, TrainingSamples(config, default_tokenizer())


def test_fresh_keywords_are_redrawn_each_step_and_belong_to_the_poem(fresh):
    config, pool = fresh
    tok = default_tokenizer()
    a, again = pool.batch(3, config), pool.batch(3, config)
    assert a == again and len(a) == 32
    counts = []
    for sample in a:
        sep = sample.index(SEP)
        assert sample[0] == BOS and sample[-1] == EOS
        body = tok.decode(sample[sep + 1 : -1])
        keywords = tok.decode(sample[2:sep])
        assert all(ch in body and ch not in FUNCTION_CHARS for ch in keywords), (keywords, body)
        counts.append(len(keywords))
    assert set(counts) <= set(KEYWORD_COUNTS) and len(set(counts)) >= 3
    # 下一轮同一首诗抽到的关键词多半不同（TF-IDF 的固定关键词每轮一样）
    first = {tok.decode(s[sep + 1 :]): s[2 : s.index(SEP)] for s in a for sep in [s.index(SEP)]}
    later = {
        tok.decode(s[s.index(SEP) + 1 :]): s[2 : s.index(SEP)]
        for step in range(60, 130)
        for s in pool.batch(step, config)
    }
    same = [first[k] == later[k] for k in first if k in later]
    assert same and sum(same) < len(same)


def test_regulated_windows_join_the_pool_until_the_finetune_share(monkeypatch):
    monkeypatch.setattr(batches, "load_regulated", lambda: (LUSHI,) * 50)
    config = replace(PRESETS["regulated"], train_poems=100, steps=50, batch_size=25, finetune_share=0.2)
    pool = TrainingSamples(config, default_tokenizer())
    assert len(pool.windows) == 150 and pool.finetune_from(config) == 40
    assert len(pool.everything) == 4 * 100 + 150
    tok = default_tokenizer()
    seen = lambda step: {
        "国破山河在" in tok.decode(s) or "烽火连三月" in tok.decode(s) for s in pool.batch(step, config)
    }  # noqa: E731
    assert True in set().union(*(seen(s) for s in range(0, 40, 3)))
    assert set().union(*(seen(s) for s in range(40, 50))) == {False}


SHIPPED_LAYOUT_SHA256 = "c9aa595679d117e1e9e16a7add08fa80b551c799b6417ae47bacf29a80664437"
"""下面这 100 步的批在样本排布改由 data.encode_sample 一处排出之前的哈希：随课程发布的模型就是按那时的排布训练的。"""


def test_fresh_batches_are_token_for_token_those_the_shipped_model_trained_on(monkeypatch):
    some = load_regulated()[:1000]
    monkeypatch.setattr(batches, "load_regulated", lambda: some)
    config = replace(PRESETS["regulated"], train_poems=2000, steps=100, batch_size=32)
    pool = TrainingSamples(config, default_tokenizer())
    assert len(pool.everything) == 12291 and pool.finetune_from(config) == 80  # 律诗窗口与只用绝句的两段都在里面
    digest = hashlib.sha256()
    for step in range(config.steps):
        for ids in pool.batch(step, config):
            digest.update(repr(ids).encode())
    assert digest.hexdigest() == SHIPPED_LAYOUT_SHA256


def test_classroom_presets_keep_their_fixed_keywords():
    config = replace(PRESETS["tiny"], train_poems=300)
    pool = TrainingSamples(config, default_tokenizer())
    from poetry_gpt.batches import encode_split

    assert pool.fixed == encode_split("train", default_tokenizer(), 300)
    assert pool.finetune_from(config) == config.steps
