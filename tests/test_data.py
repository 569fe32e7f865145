"""数据约定：语料、划分、汉字表、清洗、样本排布。"""
from collections import Counter

import pytest

from poetry_gpt.common import DEFAULT_DATA, DataFileError, os_reason, read_json, read_jsonl
from poetry_gpt.corpus import T2S_KEEP, build_records, build_t2s, in_gb2312
from poetry_gpt.data import (EOS, SEP, SPECIAL, UNK, BadRecord, Tokenizer, clean_record, default_tokenizer,
                             encode_sample, keywords_for, load_poems, loss_mask_for, make_batch, poem_body,
                             split_lines, split_of)


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
            seen.setdefault((drop, *lines[:drop], *lines[drop + 1:]), set()).add(p["split"])
    assert all(len(splits) == 1 for splits in seen.values())
    share = Counter(p["split"] for p in poems)
    assert 0.88 < share["train"] / len(poems) < 0.92
    assert 0.04 < share["val"] / len(poems) < 0.06 and 0.04 < share["test"] / len(poems) < 0.06


def test_vocabulary_order_and_round_trip(poems):
    tok = default_tokenizer()
    assert tuple(tok.tokens[: len(SPECIAL)]) == SPECIAL and len(tok) == 6672
    chars = tok.tokens[len(SPECIAL):]
    keys = [(-tok.counts[tok.stoi[c]], ord(c)) for c in chars]
    assert keys == sorted(keys) and min(tok.counts[len(SPECIAL):]) >= 2
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


def test_rebuilding_a_slice_is_deterministic(poems, tmp_path):
    """id→划分规则与汉字表顺序：同一份原始数据重建两次，逐字节相同。"""
    raw = [("唐", {"id": p["id"], "author": p["author"], "title": p["title"], "paragraphs": [p["text"]]})
           for p in poems[:300]]
    raw.append(("唐", {"id": "dup", "paragraphs": [poems[0]["text"]]}))
    files = []
    for name in ("a", "b"):
        records, rejected = build_records(raw, convert=lambda s: s)
        assert rejected == {"重复": 1} and [r["split"] for r in records] == [split_of(p["id"]) for p in poems[:300]]
        Tokenizer.build(r["text"] for r in records if r["split"] == "train").save(tmp_path / f"{name}.json")
        files.append((tmp_path / f"{name}.json").read_bytes())
    assert files[0] == files[1]
    # 每首诗都有两个“，”两个“。”：同频按码位，“。”(U+3002) 排在“，”(U+FF0C) 前面
    assert Tokenizer.load(tmp_path / "a.json").tokens[len(SPECIAL):len(SPECIAL) + 2] == ["。", "，"]


@pytest.mark.parametrize("text, reason", [
    ("春风吹□柳，明月照高楼。白日依山尽，黄河入海流。", "有缺字"),
    ("春风吹柳（一作杨），明月照高楼。白日依山尽，黄河入海流。", "有括注"),
    ("春风吹柳A，明月照高楼。白日依山尽，黄河入海流。", "有拉丁字母或数字"),
    ("春风吹柳，明月照高楼。白日依山尽，黄河入海流。", "句子长短不一"),
    ("明月照高楼。白日依山尽，黄河入海流。", "不是四句"),
    ("春风吹柳绿，明月照高楼。白日依山尽，黄河入海流", "结尾缺少标点"),
])
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
    assert y[0, len(ids) - 2] == EOS and not m[0, len(ids) - 1:].any()
    with pytest.raises(ValueError, match="超过前文长度"):
        make_batch([ids], context_length=10)


def test_read_jsonl_names_the_bad_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n{oops\n', encoding="utf-8")
    with pytest.raises(DataFileError, match="第 2 行"):
        read_jsonl(path)
    with pytest.raises(DataFileError, match="找不到"):
        read_json(tmp_path / "missing.json")


def test_tone_table_covers_common_characters():
    tones = read_json(DEFAULT_DATA / "tones.json")
    assert tones["月"] == "仄" and tones["明"] == "平" and tones["春"] == "平"
    assert len(tones) > 6000


def test_t2s_table_fills_the_gaps_with_characters_of_the_vocabulary():
    """建表的规则，用假的 OpenCC（逐字查 dict）检查；真表 data/t2s.json 由 OpenCC 建成（见 SOURCE.md）。"""
    per_char = {"風": "风", "乾": "干", "颳": "刮", "戱": "戯", "戲": "戏", "妝": "妆", "藝": "艺", "鬥": "斗"}
    convert = lambda text: "".join(per_char.get(c, c) for c in text)
    regional = {"粧": "妝", "芸": "藝", "闘": "鬭", "戯": "戲"}  # 香港、日本的写法 → 标准繁体
    variants = [lambda text: "".join(regional.get(c, c) for c in text)]
    forms = {"鎗": {"枪"}, "鬭": {"斗"}, "瞭": {"了"}, "榦": {"干", "杆"}}  # 简→繁字表倒过来
    poems = [("唐", {"title": "", "paragraphs": ["風乾戱"]})]
    records = [{"text": "乾坤风粧鎗芸，"}]  # 简体语料里原样留下的字
    vocab = set("风干刮妆枪斗乾坤芸了戏")
    table = build_t2s(poems, records, convert, vocab, variants, forms)
    assert table == {
        "風": "风", "戱": "戏",  # 原始语料里的字（戱→戯 接到底：戯→戲→戏）
        "颳": "刮", "妝": "妆", "鬥": "斗", "戲": "戏",  # 语料里没有、OpenCC 逐字会转的字
        "粧": "妆", "戯": "戏", "闘": "斗",  # 不在 GB2312 里：先换成标准繁体（闘→鬭→斗 接到底）
        "鎗": "枪", "鬭": "斗",  # 恰好是一个简体字的繁体写法
    }
    # 不收的：简体语料里按词留下的“乾”、GB2312 里的“芸”（芸香）、T2S_KEEP 的“瞭”、有两个简体的“榦”、
    # 简体不在汉字表里的“藝”
    assert in_gb2312("芸") and not in_gb2312("粧") and "瞭" in T2S_KEEP


def test_one_form_type_found_by_any_of_its_fields():
    from poetry_gpt.data import FIVE, SEVEN, form_of
    five = form_of(name="五言绝句")
    assert (five.line_length, five.token) == (5, FIVE)
    assert form_of(line_length=7) == form_of(token=SEVEN) == form_of(name="七言绝句")
    with pytest.raises(KeyError):
        form_of(line_length=6)
    with pytest.raises(TypeError):
        form_of(name="五言绝句", line_length=5)


def test_build_replaces_variants_and_keeps_near_twins_in_one_split():
    ids = [f"twin-{i}" for i in range(200)]
    train_id = next(i for i in ids if split_of(i) == "train")
    val_id = next(i for i in ids if split_of(i) == "val")
    raw = [("宋", {"id": train_id, "paragraphs": ["疎影横斜水清浅，暗香浮动月黄昏。", "霜禽欲下先偷眼，粉蝶如知合断魂。"]}),
           # 第三句不同，其余三句同样位置一字不差：近重复，跟着先出现的 train
           ("宋", {"id": val_id, "paragraphs": ["疏影横斜水清浅，暗香浮动月黄昏。", "山禽欲下先偷眼，粉蝶如知合断魂。"]})]
    records, rejected = build_records(raw, convert=lambda s: s, variants={"疎": "疏"})
    assert rejected == {}
    assert records[0]["text"].startswith("疏影") and "疎" not in records[0]["text"]
    assert [r["split"] for r in records] == ["train", "train"]


def test_corpus_has_no_replaced_variants_and_the_rhyme_table_knows_common_characters(poems):
    from poetry_gpt import prosody
    from poetry_gpt.corpus_tables import PINGSHUI_ERRATA, VARIANTS
    text = "".join(p["text"] for p in poems)
    assert not set(VARIANTS) & set(text)
    assert not set(VARIANTS.values()) & set(VARIANTS)  # 一步到规范字，没有 A→B→C
    assert all(set(groups) <= set(prosody.GROUPS) for groups in PINGSHUI_ERRATA.values())
    for ch in "啼遍堤炉扫樽懒疏莺":
        assert prosody.rhyme_groups(ch), ch


def test_os_errors_are_explained_in_chinese(tmp_path):
    """系统给的原因（e.strerror）是英文：常见的几种换成中文，不认识的照原话。"""
    with pytest.raises(OSError) as missing:
        open(tmp_path / "nothing" / "x.txt", encoding="utf-8")
    with pytest.raises(OSError) as folder:
        open(tmp_path, encoding="utf-8")
    (tmp_path / "f").write_text("", encoding="utf-8")
    with pytest.raises(OSError) as under_file:
        (tmp_path / "f" / "run").mkdir()
    assert [os_reason(e.value) for e in (missing, folder, under_file)] == \
        ["没有这个文件或文件夹", "这是一个文件夹", "路径里有一段不是文件夹"]
    assert os_reason(OSError(9999, "Something odd")) == "Something odd"
