"""写诗：受约束解码的保证、KV 缓存与整段重算一致、输入检查、种子、繁体与异体字。

约束的保证不依赖模型好坏，所以这里大多用一个随机初始化的小模型：它最不守规矩，最能考验约束。
"""

import json

import pytest
import torch

from poetry_gpt.constraints import Constraint
from poetry_gpt.data import BOS, EOS, FIVE, SEP, SEVEN, default_tokenizer, to_simplified
from poetry_gpt.generate import (
    MAX_SEED,
    GenerationError,
    check_characters,
    draft_seed,
    draw_form,
    iter_poems,
    write_drafts,
    write_one,
    write_poems,
)
from poetry_gpt.metrics import format_ok, keyword_hit
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.sampling import SamplingConfig
from poetry_gpt.settings import PLAIN

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


def test_unspecified_form_is_drawn_by_the_corpus_share(model, tmp_path):
    from collections import Counter

    from poetry_gpt.common import DataFileError
    from poetry_gpt.data import load_poems
    from poetry_gpt.generate import form_shares

    counts = Counter(p["form"] for p in load_poems("train"))
    total = sum(counts.values())
    assert form_shares() == {5: counts["五言绝句"] / total, 7: counts["七言绝句"] / total}
    with pytest.raises(DataFileError, match="train_forms"):  # 旧的 stats.json：中文的错误，不是 KeyError
        (tmp_path / "stats.json").write_text(json.dumps({"forms": counts}, ensure_ascii=False), encoding="utf-8")
        form_shares.__wrapped__(tmp_path / "stats.json")
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


DRAFT_OPTIONS = {
    "默认": dict(keywords="山"),
    "藏头": dict(keywords="夜", acrostic="春夏秋冬", form=7),
    "不受约束": dict(keywords="月", constrained=False),
    "只守格式": dict(keywords="江雪", form=5, rules=PLAIN),
    "贪心": dict(keywords="风", sampling=SamplingConfig(temperature=0)),
    "高温不截断": dict(keywords="花", sampling=SamplingConfig(1.5, 0, 1.0)),
    "低温": dict(keywords="雨", sampling=SamplingConfig(0.3, 5, 0.5), form=5),
}


@pytest.mark.parametrize("option", DRAFT_OPTIONS.values(), ids=DRAFT_OPTIONS.keys())
def test_draft_i_of_a_batch_is_the_single_write_with_its_seed(model, option):
    """一批 6 份草稿（每步一次前向，批大小 6）里的第 i 份，逐字等于用它的种子单独写（批大小 1）的那一首。

    批大小不同时矩阵乘法走的是不同的算法（一行时是矩阵乘向量），logits 在最后几位上不同（约 1e-5），
    所以两边的平均对数概率只比到 1e-4；写出的字要一字不差（见 generate.write_drafts）。"""
    kw = option.pop("keywords")
    batch = write_drafts(model, TOK, kw, drafts=6, seed=41, **option)
    singles = [write_one(model, TOK, kw, seed=p.seed, **option) for p in batch]
    assert [p.seed for p in batch] == [draft_seed(41, i) for i in range(6)] and batch[0].seed == 41
    assert [(p.text, p.form) for p in batch] == [(p.text, p.form) for p in singles]
    for a, b in zip(batch, singles):
        assert a.log_prob == pytest.approx(b.log_prob, abs=1e-4) and a.log_prob < 0
    if not option.get("sampling", SamplingConfig()).greedy:
        assert len({p.text for p in batch}) > 1  # 真的是几份不同的草稿


def test_log_prob_is_the_models_own_mean_log_probability(model):
    """Poem.log_prob：不受约束、温度 1 时模型给正文与 <eos> 每个字的平均对数概率，与整段重算的一致。"""
    poem = write_one(model, TOK, "月", form=5, seed=3)
    ids = [BOS, FIVE, TOK.stoi["月"], SEP] + TOK.encode(poem.text) + [EOS]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids[:-1]]))[0][0], -1)
    picked = logp[torch.arange(3, len(ids) - 1), torch.tensor(ids[4:])]
    assert len(picked) == len(poem.text) + 1
    assert poem.log_prob == pytest.approx(picked.mean().item(), abs=1e-5)


def test_drafts_keep_the_best_and_list_every_draft(model):
    poem = write_poems(model, TOK, "山", seed=7, drafts=5)[0]
    batch = write_drafts(model, TOK, "山", drafts=5, seed=7)
    assert [d["text"] for d in poem.drafts] == [p.text for p in batch]
    assert [d["kept"] for d in poem.drafts].count(True) == 1
    kept = next(d for d in poem.drafts if d["kept"])
    assert poem.text == kept["text"] and poem.score == kept["score"] == max(p.log_prob for p in batch)
    assert poem.log_prob == max(p.log_prob for p in batch)
    # 一份草稿：就是今天的写法，没有挑
    single = write_poems(model, TOK, "山", seed=7, drafts=1)[0]
    assert single.text == batch[0].text and single.drafts == [] and single.score is None


def test_n_poems_are_each_the_best_of_their_own_drafts(model):
    poems = write_poems(model, TOK, "山", seed=7, n=3, drafts=4)
    assert len({p.text for p in poems}) == 3
    for k, poem in enumerate(poems):
        assert [d["seed"] for d in poem.drafts] == [draft_seed(7 + k, i) for i in range(4)]
        assert poem.text in {d["text"] for d in poem.drafts}


def test_coherence_score_adds_the_line_pmi(model):
    from poetry_gpt.rerank import continuation_log_probs, line_pmi, score_drafts

    batch = write_drafts(model, TOK, "山", drafts=3, seed=2, form=5)
    pmi = line_pmi(model, TOK, batch)
    assert score_drafts(model, TOK, batch, "coherence") == pytest.approx([p.log_prob + x for p, x in zip(batch, pmi)])
    assert score_drafts(model, TOK, batch, "likelihood") == [p.log_prob for p in batch]
    # 第一首的 PMI 照定义逐项算
    text, head = batch[0].text, [BOS, FIVE, TOK.stoi["山"], SEP]
    first, second = TOK.encode(text[:12]), TOK.encode(text[12:])
    with torch.no_grad():

        def total(prefix, cont):
            logp = torch.log_softmax(model(torch.tensor([prefix + cont]))[0][0], -1)
            return sum(logp[len(prefix) - 1 + i, t].item() for i, t in enumerate(cont))

        expected = (total(head + first, second) - total(head, second)) / len(second)
    assert pmi[0] == pytest.approx(expected, abs=1e-4)
    assert continuation_log_probs(model, [(head, second)])[0] == pytest.approx(total(head, second), abs=1e-4)
    with pytest.raises(ValueError, match="分数"):
        score_drafts(model, TOK, batch, "beauty")


@pytest.mark.parametrize("drafts", [0, 65])
def test_draft_count_out_of_range_is_refused(model, drafts):
    with pytest.raises(GenerationError, match="草稿"):
        write_poems(model, TOK, "月", drafts=drafts)
