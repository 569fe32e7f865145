"""建语料：重建一段语料结果不变、繁简表补上汉字表里的字、异体字换掉而近似的两首留在同一份里。"""

import pytest

from courseware.corpus.build import T2S_KEEP, build_records, build_t2s, in_gb2312
from poetry_gpt.data import SPECIAL, Tokenizer, load_poems, split_of


@pytest.fixture(scope="module")
def poems():
    return load_poems()


def test_rebuilding_a_slice_is_deterministic(poems, tmp_path):
    """id→划分规则与汉字表顺序：同一份原始数据重建两次，逐字节相同。"""
    raw = [
        ("唐", {"id": p["id"], "author": p["author"], "title": p["title"], "paragraphs": [p["text"]]})
        for p in poems[:300]
    ]
    raw.append(("唐", {"id": "dup", "paragraphs": [poems[0]["text"]]}))
    files = []
    for name in ("a", "b"):
        records, rejected = build_records(raw, convert=lambda s: s)
        assert rejected == {"重复": 1} and [r["split"] for r in records] == [split_of(p["id"]) for p in poems[:300]]
        Tokenizer.build(r["text"] for r in records if r["split"] == "train").save(tmp_path / f"{name}.json")
        files.append((tmp_path / f"{name}.json").read_bytes())
    assert files[0] == files[1]
    # 每首诗都有两个“，”两个“。”：同频按码位，“。”(U+3002) 排在“，”(U+FF0C) 前面
    assert Tokenizer.load(tmp_path / "a.json").tokens[len(SPECIAL) : len(SPECIAL) + 2] == ["。", "，"]


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
        "風": "风",
        "戱": "戏",  # 原始语料里的字（戱→戯 接到底：戯→戲→戏）
        "颳": "刮",
        "妝": "妆",
        "鬥": "斗",
        "戲": "戏",  # 语料里没有、OpenCC 逐字会转的字
        "粧": "妆",
        "戯": "戏",
        "闘": "斗",  # 不在 GB2312 里：先换成标准繁体（闘→鬭→斗 接到底）
        "鎗": "枪",
        "鬭": "斗",  # 恰好是一个简体字的繁体写法
    }
    # 不收的：简体语料里按词留下的“乾”、GB2312 里的“芸”（芸香）、T2S_KEEP 的“瞭”、有两个简体的“榦”、
    # 简体不在汉字表里的“藝”
    assert in_gb2312("芸") and not in_gb2312("粧") and "瞭" in T2S_KEEP


def test_build_replaces_variants_and_keeps_near_twins_in_one_split():
    ids = [f"twin-{i}" for i in range(200)]
    train_id = next(i for i in ids if split_of(i) == "train")
    val_id = next(i for i in ids if split_of(i) == "val")
    raw = [
        (
            "宋",
            {"id": train_id, "paragraphs": ["疎影横斜水清浅，暗香浮动月黄昏。", "霜禽欲下先偷眼，粉蝶如知合断魂。"]},
        ),
        # 第三句不同，其余三句同样位置一字不差：近重复，跟着先出现的 train
        ("宋", {"id": val_id, "paragraphs": ["疏影横斜水清浅，暗香浮动月黄昏。", "山禽欲下先偷眼，粉蝶如知合断魂。"]}),
    ]
    records, rejected = build_records(raw, convert=lambda s: s, variants={"疎": "疏"})
    assert rejected == {}
    assert records[0]["text"].startswith("疏影") and "疎" not in records[0]["text"]
    assert [r["split"] for r in records] == ["train", "train"]
