"""数据约定：语料、划分、汉字表、清洗、样本排布。"""

from collections import Counter

import pytest

from poetry_gpt.common import DEFAULT_DATA, read_json
from poetry_gpt.data import (
    EOS,
    MAX_CONDITION,
    SEP,
    SPECIAL,
    UNK,
    BadRecord,
    clean_record,
    condition,
    default_tokenizer,
    encode_sample,
    keywords_for,
    load_poems,
    loss_mask_for,
    make_batch,
    poem_body,
    split_lines,
    split_of,
)


@pytest.fixture(scope="module")
def poems():
    return load_poems()


def test_corpus_counts_and_fields(poems):
    stats = read_json(DEFAULT_DATA / "stats.json")
    assert len(poems) == stats["poems"] == 99296
    assert 2_500_000 < sum(len(poem_body(p["text"])) for p in poems) < 2_800_000
    assert {tuple(p) for p in poems[:100]} == {("id", "dynasty", "author", "title", "form", "text", "split")}
    forms = Counter(p["form"] for p in poems)
    assert set(forms) == {"五言绝句", "七言绝句"}
    assert set(Counter(p["dynasty"] for p in poems)) == {"唐", "宋"}
    assert len({poem_body(p["text"]) for p in poems}) == len(poems), "正文应当去过重"


def test_every_poem_is_a_clean_quatrain(poems):
    for p in poems[::97]:
        lines = split_lines(p["text"])
        size = 5 if p["form"] == "五言绝句" else 7
        assert len(lines) == 4 and all(len(line) == size for line in lines), p
        assert clean_record(p, convert=lambda s: s)["text"] == p["text"]


def test_split_is_fixed_by_the_id_hash_and_near_twins_share_one(poems):
    moved = [p for p in poems if p["split"] != split_of(p["id"])]
    assert len(moved) == read_json(DEFAULT_DATA / "stats.json")["near_twins_moved"] == 156
    # 没有一首 val / test 诗与 train 里的诗在同样位置共有三句
    seen = {}
    for p in poems:
        lines = split_lines(p["text"])
        for drop in range(4):
            seen.setdefault((drop, *lines[:drop], *lines[drop + 1 :]), set()).add(p["split"])
    assert all(len(splits) == 1 for splits in seen.values())
    share = Counter(p["split"] for p in poems)
    assert 0.88 < share["train"] / len(poems) < 0.92
    assert 0.04 < share["val"] / len(poems) < 0.06 and 0.04 < share["test"] / len(poems) < 0.06


def test_vocabulary_order_and_round_trip(poems):
    tok = default_tokenizer()
    assert tuple(tok.tokens[: len(SPECIAL)]) == SPECIAL and len(tok) == 6672
    chars = tok.tokens[len(SPECIAL) :]
    keys = [(-tok.counts[tok.stoi[c]], ord(c)) for c in chars]
    assert keys == sorted(keys) and min(tok.counts[len(SPECIAL) :]) >= 2
    val = [p for p in poems if p["split"] == "val"]
    unknown = 0
    for p in val:
        ids = tok.encode(p["text"])
        back = tok.decode(ids)
        unknown += ids.count(UNK)
        assert back == "".join(c if c in tok else "<unk>" for c in p["text"])
    total = sum(len(p["text"]) for p in val)
    assert unknown / total == pytest.approx(read_json(DEFAULT_DATA / "stats.json")["val_unk_share"], abs=1e-6)
    assert unknown / total < 0.002


@pytest.mark.parametrize(
    "text, reason",
    [
        ("春风吹□柳，明月照高楼。白日依山尽，黄河入海流。", "有缺字"),
        ("春风吹柳（一作杨），明月照高楼。白日依山尽，黄河入海流。", "有括注"),
        ("春风吹柳A，明月照高楼。白日依山尽，黄河入海流。", "有拉丁字母或数字"),
        ("春风吹柳，明月照高楼。白日依山尽，黄河入海流。", "句子长短不一"),
        ("明月照高楼。白日依山尽，黄河入海流。", "不是四句"),
        ("春风吹柳绿，明月照高楼。白日依山尽，黄河入海流", "结尾缺少标点"),
    ],
)
def test_clean_record_rejects_with_a_reason(text, reason):
    with pytest.raises(BadRecord) as e:
        clean_record({"text": text})
    assert e.value.reason == reason


def test_clean_record_normalises_and_simplifies():
    rec = clean_record({"paragraphs": ["床前明月光,疑是地上霜.", "舉頭望明月;低頭思故鄉!"], "title": "靜夜思"})
    assert rec["text"] == "床前明月光，疑是地上霜。举头望明月，低头思故乡！"
    assert rec["form"] == "五言绝句" and rec["title"] == "静夜思"


def test_sample_layout_and_loss_mask(poems):
    tok = default_tokenizer()
    p = poems[0]
    kws = keywords_for(p)
    assert 1 <= len(kws) <= 3 and kws == keywords_for(p)
    assert all(k in poem_body(p["text"]) for k in kws)
    ids = encode_sample(p, tok, ["月"])
    assert tok.decode(ids) == f"<bos><5>月<sep>{p['text']}<eos>"
    mask = loss_mask_for(ids)
    assert len(mask) == len(ids) - 1 and sum(mask) == len(p["text"]) + 1  # 正文、标点与 <eos>
    assert mask.index(True) == ids.index(SEP)  # 第一个计入损失的目标：<sep> 之后的第一个字
    x, y, m = make_batch([ids, encode_sample(poems[1], tok)], context_length=64)
    assert x.shape == y.shape == m.shape == (2, 64)
    assert y[0, len(ids) - 2] == EOS and not m[0, len(ids) - 1 :].any()
    with pytest.raises(ValueError, match="超过前文长度"):
        make_batch([ids], context_length=10)


def test_tone_table_covers_common_characters():
    tones = read_json(DEFAULT_DATA / "tones.json")
    assert tones["月"] == "仄" and tones["明"] == "平" and tones["春"] == "平"
    assert len(tones) > 6000


def test_one_form_type_found_by_any_of_its_fields():
    from poetry_gpt.data import FIVE, SEVEN, form_of

    five = form_of(name="五言绝句")
    assert (five.line_length, five.token) == (5, FIVE)
    assert form_of(line_length=7) == form_of(token=SEVEN) == form_of(name="七言绝句")
    with pytest.raises(KeyError):
        form_of(line_length=6)
    with pytest.raises(TypeError):
        form_of(name="五言绝句", line_length=5)


def test_corpus_has_no_replaced_variants_and_the_rhyme_table_knows_common_characters(poems):
    from courseware.corpus.tables import PINGSHUI_ERRATA, VARIANTS
    from poetry_gpt import prosody, rhyme_book

    text = "".join(p["text"] for p in poems)
    assert not set(VARIANTS) & set(text)
    assert not set(VARIANTS.values()) & set(VARIANTS)  # 一步到规范字，没有 A→B→C
    assert all(set(groups) <= set(rhyme_book.GROUPS) for groups in PINGSHUI_ERRATA.values())
    for ch in "啼遍堤炉扫樽懒疏莺":
        assert prosody.rhyme_groups(ch), ch


def test_condition_keeps_what_training_showed():
    """条件区至多 3 个字（训练时见过的长度），多了取 IDF 高（少见）的，给定的次序只在同分时算数。"""
    tok = default_tokenizer()
    by_idf = lambda chars: "".join(sorted(chars, key=lambda c: tok.doc_freq[tok.stoi[c]]))  # noqa: E731
    assert condition("月", "", tok) == "月" and condition("江雪孤", "", tok) == "江雪孤"
    four = condition("春夏秋冬", "", tok)
    assert len(four) == MAX_CONDITION == 3 and four == by_idf("春夏秋冬")[:3]
    assert "春" not in four  # 四字里最常见的字让出位置
    assert condition("夜", "春夏秋冬", tok) == by_idf("夜春夏秋冬")[:3]
    assert condition("", "春江花月", tok) == by_idf("春江花月")[:3]
    assert condition("月月", "月", tok) == "月"  # 去掉重复
