"""写诗：受约束解码的保证、KV 缓存与整段重算一致、输入检查、种子、繁体与异体字。

约束的保证不依赖模型好坏，所以这里大多用一个随机初始化的小模型：它最不守规矩，最能考验约束。
"""

import pytest
import torch

from poetry_gpt.constraints import Constraint
from poetry_gpt.data import BOS, EOS, FIVE, SEP, SEVEN, default_tokenizer, to_simplified
from poetry_gpt.generate import (
    MAX_SEED,
    GenerationError,
    check_characters,
    draw_form,
    iter_poems,
    write_one,
    write_poems,
)
from poetry_gpt.metrics import format_ok, keyword_hit
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.sampling import SamplingConfig

TOK = default_tokenizer()


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=48, width=32, n_layers=2, n_heads=2)).eval()


def lines_of(text):
    return [
        line
        for line in text.replace("，", "|").replace("。", "|").replace("？", "|").replace("！", "|").split("|")
        if line
    ]


@pytest.mark.parametrize("form", [5, 7, None])
def test_constrained_poems_keep_the_form(model, form):
    for seed in range(12):
        poem = write_poems(model, TOK, "月", form=form, seed=seed, sampling=SamplingConfig(1.5, 0, 1.0))[0]
        assert format_ok(poem.text, poem.form), poem.text
        assert form is None or poem.form == form
        assert "月" in poem.text
        lines = lines_of(poem.text)
        assert len(set(lines)) == 4, poem.text
        assert "<" not in poem.text and poem.text[-1] in "。？！"


def test_several_keywords_and_acrostic_are_guaranteed(model):
    for seed in range(8):
        poem = write_poems(model, TOK, "江雪孤", form=5, seed=seed, sampling=SamplingConfig(temperature=1.2))[0]
        assert format_ok(poem.text, 5) and keyword_hit(poem.text, "江雪孤"), poem.text
        poem = write_poems(model, TOK, "夜", acrostic="春夏秋冬", form=7, seed=seed)[0]
        assert format_ok(poem.text, 7) and "夜" in poem.text
        assert [line[0] for line in lines_of(poem.text)] == list("春夏秋冬")


def test_same_seed_same_poem_and_n_distinct_poems(model):
    a = write_poems(model, TOK, "山", seed=3, n=3)
    b = write_poems(model, TOK, "山", seed=3, n=3)
    assert [p.text for p in a] == [p.text for p in b]
    assert len({p.text for p in a}) == 3


def test_free_mode_ends_within_the_context(model):
    poem = write_poems(model, TOK, "月", seed=1, constrained=False)[0]
    assert len(poem.text) <= model.config.context_length


def test_kv_cache_gives_the_same_poem_as_full_recomputation(model):
    """贪心解码：带缓存的 write_one 与每步重算整段的朴素循环写出同一首诗。"""
    poem = write_one(model, TOK, "风", form=7, sampling=SamplingConfig(temperature=0))
    ids = [BOS, SEVEN, TOK.stoi["风"], SEP]
    constraint = Constraint(TOK, 7, "风")
    with torch.no_grad():
        while True:
            logits = model(torch.tensor([ids]))[0][0, -1]
            token = int(torch.argmax(constraint.apply(logits)))
            if token == EOS:
                break
            ids.append(token)
            constraint.advance(token)
    assert TOK.decode(ids[4:]) == poem.text


def test_input_checks_name_the_character():
    assert check_characters("風", TOK) == "风"  # 繁体换成简体
    assert check_characters(" 月 ", TOK) == "月"
    for bad, named in (("a", "“a”"), ("😀", "“😀”"), ("月7", "“7”"), ("\udcff", "0xff")):
        with pytest.raises(GenerationError, match=named):
            check_characters(bad, TOK)
    with pytest.raises(GenerationError, match="空"):
        check_characters("  ", TOK)
    rare = next(chr(c) for c in range(0x4E00, 0x9FA5) if chr(c) not in TOK and to_simplified(chr(c)) == chr(c))
    with pytest.raises(GenerationError, match=f"“{rare}”.*不在汉字表"):
        check_characters(rare, TOK)


def test_bad_options_are_refused(model):
    with pytest.raises(GenerationError, match="正好 4 个"):
        write_poems(model, TOK, "月", acrostic="春夏秋")
    with pytest.raises(GenerationError, match="最多"):
        write_poems(model, TOK, "春夏秋冬雪")
    with pytest.raises(GenerationError, match="体裁"):
        write_poems(model, TOK, "月", form=6)


@pytest.mark.parametrize(
    "option, message",
    [
        (dict(seed=2**63), "种子"),
        (dict(seed=-1), "种子"),
        (dict(seed=10**20), "种子"),
        (dict(sampling=SamplingConfig(temperature=0), n=3), "-n 只能是 1"),  # 贪心：每次同一首
        (dict(sampling=SamplingConfig(top_k=1), n=2), "-n 只能是 1"),
        (dict(acrostic="春夏秋冬", constrained=False), "--free"),  # 不受约束时藏头无从保证
    ],
)
def test_non_finite_and_out_of_range_options_are_refused(model, option, message):
    with pytest.raises(GenerationError, match=message):
        write_poems(model, TOK, "月", **option)
    with pytest.raises(GenerationError, match=message):
        iter_poems(model, TOK, "月", **option)  # 检查在调用时就做，不等到取第一首


def test_seeds_wrap_around_at_the_limit(model):
    seeds = [p.seed for p in iter_poems(model, TOK, "月", n=3, seed=MAX_SEED - 2)]
    assert seeds[:2] == [MAX_SEED - 2, MAX_SEED - 1] and all(0 <= s < MAX_SEED for s in seeds)


def test_iter_poems_yields_one_poem_at_a_time_like_write_poems(model):
    poems = iter_poems(model, TOK, "月", n=3, seed=5)
    first = next(poems)  # 第一首写好就能拿到，不必等三首都写完
    assert [p.text for p in [first, *poems]] == [p.text for p in write_poems(model, TOK, "月", n=3, seed=5)]
    assert write_poems(model, TOK, "月", seed=2**63 - 1)[0].seed == 2**63 - 1


GAPS = {"鎗": "枪", "颳": "刮", "眞": "真", "粧": "妆", "簷": "檐", "隠": "隐", "衹": "只", "牠": "它"}


def test_traditional_and_variant_forms_are_written_in_simplified(model):
    """t2s.json 的缺口补上了：语料里没有的繁体（颳、眞）、OpenCC 不转的异体（鎗、粧、簷、隠）都换成汉字表里的简体字。"""
    for typed, simple in GAPS.items():
        assert to_simplified(typed) == simple and check_characters(typed, TOK) == simple
    assert to_simplified("乾坤") == "乾坤" and to_simplified("祇") == "祇"  # 简体语料里的正常用字不动
    poem = write_poems(model, TOK, "鎗颳眞", seed=3)[0]
    assert all(c in poem.text for c in "枪刮真") and not any(c in poem.text for c in "鎗颳眞")
    poem = write_poems(model, TOK, acrostic="粧簷隠牠", seed=3)[0]
    assert [line[0] for line in poem.text[:-1].replace("。", "，").replace("？", "，").split("，")] == list("妆檐隐它")


def test_unspecified_form_is_drawn_by_the_corpus_share(model):
    from collections import Counter

    from poetry_gpt.data import load_poems
    from poetry_gpt.generate import FORM_SHARE

    counts = Counter(p["form"] for p in load_poems("train"))
    total = sum(counts.values())
    assert FORM_SHARE == {5: counts["五言绝句"] / total, 7: counts["七言绝句"] / total}
    # 与模型的 logits 无关：2000 个种子里七言约占 83%（均匀地抽只有一半）；只放得下一种时总是它
    forms = [draw_form([5, 7], torch.Generator().manual_seed(s)) for s in range(2000)]
    assert 1600 <= forms.count(7) <= 1720, forms.count(7)
    assert {draw_form([5], torch.Generator().manual_seed(s)) for s in range(50)} == {5}
    # write_one 用种子的第一次抽取定体裁：诗的体裁就是这一抽
    for seed in (forms.index(5), forms.index(7)):
        assert write_one(model, TOK, "月", seed=seed).form == forms[seed]


def test_write_one_stops_when_prompt_and_body_fill_the_context():
    """受约束解码写不满前文长度；关掉约束、贪心解码时，前文加正文正好停在 context_length 个位置。"""
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=16, width=32, n_layers=2, n_heads=2)).eval()
    poem = write_one(model, TOK, "月", form=5, sampling=SamplingConfig(temperature=0), constrained=False)
    ids = [BOS, FIVE, TOK.stoi["月"], SEP]
    with torch.no_grad():
        while len(ids) < 16:  # 朴素的循环：每一步重算整段
            token = int(torch.argmax(model(torch.tensor([ids]))[0][0, -1]))
            if token == EOS:
                break
            ids.append(token)
    assert len(ids) == 16, "这个未训练的小模型应当一直写到前文长度"
    assert poem.text == TOK.decode(ids[4:])
