"""写诗：受约束解码的保证、KV 缓存与整段重算一致、输入检查、采样截断、评价指标、write / eval 命令。

约束的保证不依赖模型好坏，所以这里大多用一个随机初始化的小模型：它最不守规矩，最能考验约束。
"""
import json
import pickle
import re

import pytest
import torch

from poetry_gpt.data import BOS, EOS, SEP, SEVEN, Tokenizer, default_tokenizer, to_simplified
from poetry_gpt.constraints import LINE_END_CHOICES, Constraint
from poetry_gpt.generate import (MAX_SEED, GenerationError, check_characters, draw_form, iter_poems, write_one,
                                 write_poems)
from poetry_gpt.sampling import SamplingConfig, filter_logits
from poetry_gpt.settings import PLAIN
from poetry_gpt.courseware.cli.reader_table import READER_ROWS
from poetry_gpt.metrics import copy_rate, distinct_n, eval_prompts, format_ok, keyword_hit
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.checkpoint import save_checkpoint

TOK = default_tokenizer()


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=48, width=32, n_layers=2, n_heads=2)).eval()


@pytest.fixture(scope="module")
def checkpoint(model, tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "model.pt"
    save_checkpoint(path, model, TOK, half=True)
    return path


def lines_of(text):
    return [line for line in text.replace("，", "|").replace("。", "|").replace("？", "|").replace("！", "|").split("|") if line]


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


def test_filter_logits_top_k_and_top_p():
    logits = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05]))
    kept = lambda t: torch.isfinite(t).tolist()  # noqa: E731
    assert kept(filter_logits(logits, top_k=2)) == [True, True, False, False]
    assert kept(filter_logits(logits, top_p=0.7)) == [True, True, False, False]
    assert kept(filter_logits(logits, top_p=0.81)) == [True, True, True, False]
    assert kept(filter_logits(logits, top_p=0.1)) == [True, False, False, False]
    assert kept(filter_logits(logits)) == [True] * 4


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


def test_write_command(poet, checkpoint):
    done = poet("write", "月", "--checkpoint", str(checkpoint), "--seed", "4", "--form", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()[:4]
    assert all(len(line) == 6 for line in lines) and "月" in "".join(lines)
    done = poet("write", "雪", "-n", "2", "--json", "--checkpoint", str(checkpoint), "--acrostic", "春夏秋冬")
    poems = json.loads(done.stdout)
    assert len(poems) == 2 and all(format_ok(p["text"]) and "雪" in p["text"] for p in poems)
    assert all(p["prosody"]["rhyme"]["rhymes"] and not p["prosody"]["rhyme"]["same_character"] for p in poems)
    assert all(p["condition"] == "冬夏雪" for p in poems)  # 五个字里 IDF 高（少见）的三个


def test_write_command_rhyme_and_tones_flags(poet, checkpoint):
    """同一个种子：--no-rhyme --tones off 写出的随机模型的诗不押韵，默认的押韵；--tones strict 每字都合格式。"""
    def write(*flags):
        done = poet("write", "山", "--checkpoint", str(checkpoint), "--seed", "3", "--form", "7", "-n", "3",
                    "--json", *flags)
        assert done.returncode == 0, done.stderr
        return [p["prosody"] for p in json.loads(done.stdout)]
    assert all(r["rhyme"]["rhymes"] and r["tones"]["score"] == 1.0 for r in write())
    loose = write("--no-rhyme", "--tones", "off")
    assert not all(r["rhyme"]["rhymes"] for r in loose) and min(r["tones"]["score"] for r in loose) < 0.9
    assert all(r["tones_strict"]["score"] == 1.0 and r["rhyme"]["rhymes"] for r in write("--tones", "strict"))
    done = poet("write", "山", "--checkpoint", str(checkpoint), "--tones", "loose")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "strict" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["abc"], "“a”"), (["😀"], "“😀”"), ([""], "至少一个汉字"), (["月", "--acrostic", "春夏"], "正好 4 个"),
])
def test_write_command_errors(poet, checkpoint, args, message):
    done = poet("write", *args, "--checkpoint", str(checkpoint))
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stdout + done.stderr


def test_write_command_checkpoint_errors(poet, tmp_path, checkpoint):
    cut = tmp_path / "cut.pt"
    cut.write_bytes(checkpoint.read_bytes()[:1000])
    for path, message in ((tmp_path / "none.pt", "找不到模型存档"), (cut, "不是完整的模型存档")):
        done = poet("write", "月", "--checkpoint", str(path))
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_eval_command_json(poet, checkpoint):
    done = poet("eval", "--checkpoint", str(checkpoint), "--prompts", "4", "--val-poems", "40", "--json",
                timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["prompts"] == 4 and result["val_poems"] == 40
    assert result["format_rate"] == 1.0 and result["keyword_hit_rate"] == 1.0
    assert 5.0 < result["bigram_cross_entropy"] < 6.5  # 第 07 课：约 5.63 奈特/字
    assert result["val_cross_entropy"] > result["bigram_cross_entropy"]  # 随机初始化的模型比基线差
    reader = result["reader"]
    assert [reader[k]["poems"] for k in ("五言", "七言", "藏头", "四个关键词")] == [2, 2, 4, 4]
    assert [result["human"][k]["poems"] for k in ("五言", "七言")] == [2, 2]
    assert reader["藏头"]["format_rate"] == 1.0 and reader["四个关键词"]["keyword_hit"] == 1.0
    assert reader["五言"]["rhyme"] == 1.0 and reader["五言"]["char_3"] == 0.0  # 诗律解码：随机模型也押韵、不乱重复
    done = poet("eval", "--checkpoint", str(checkpoint), "--prompts", "4", "--val-poems", "40", "--markdown", "--plain",
                timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("| 项目 | 五言（2） | 五言·人（2） |"), done.stdout + done.stderr
    assert len(done.stdout.splitlines()) == 2 + len(READER_ROWS)


@pytest.mark.parametrize("option, message", [
    (dict(temperature=float("nan")), "有限数"), (dict(temperature=float("inf")), "有限数"),
    (dict(top_p=float("nan")), "top-p"), (dict(top_p=float("inf")), "top-p"), (dict(top_p=0), "top-p"),
    (dict(top_k=-1), "top-k"),
    (dict(temperature=1e-40), "在 0.01 到 10 之间"), (dict(temperature=10.5), "在 0.01 到 10 之间，收到 10.5"),
    (dict(temperature=0.001), "几乎没有分别，要这样就给 0"),  # 课程定的下限：再小就等于贪心，不是除法溢出
    (dict(temperature=-1.0), "不能是负数：0 表示每步取最可能的字"),
])
def test_sampling_settings_out_of_range_are_refused(option, message):
    """范围只查一次：SamplingConfig 建的时候（./poet write 的 --temperature 等用 settings 里同样的范围）。"""
    with pytest.raises(ValueError, match=message):
        SamplingConfig(**option)


@pytest.mark.parametrize("option, message", [
    (dict(seed=2**63), "种子"), (dict(seed=-1), "种子"), (dict(seed=10**20), "种子"),
    (dict(sampling=SamplingConfig(temperature=0), n=3), "-n 只能是 1"),  # 贪心：每次同一首
    (dict(sampling=SamplingConfig(top_k=1), n=2), "-n 只能是 1"),
    (dict(acrostic="春夏秋冬", constrained=False), "--free"),  # 不受约束时藏头无从保证
])
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


@pytest.mark.parametrize("args, message", [
    (["--temperature", "nan"], "有限数"), (["--temperature", "inf"], "有限数"), (["--top-p", "nan"], "top-p"),
    (["--seed", "99999999999999999999"], "种子"), (["-n", "1000"], "最多 100"),
])
def test_write_command_refuses_bad_numbers(poet, checkpoint, args, message):
    done = poet("write", "月", *args, "--checkpoint", str(checkpoint))
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stdout + done.stderr


def test_write_and_eval_refuse_garbage_and_accept_a_training_folder(poet, tmp_path, checkpoint):
    garbage = tmp_path / "garbage.pt"
    garbage.write_text("hi\n", encoding="utf-8")
    for command in (["write", "月"], ["eval", "--prompts", "1"]):
        done = poet(*command, "--checkpoint", str(garbage))
        assert done.returncode == 2 and "不是完整的模型存档" in done.stderr and "Traceback" not in done.stderr
    raw = tmp_path / "raw.pt"  # pickle.dump 直接写的：中文说明，不印 torch 的英文警告，也不说“被截断”
    raw.write_bytes(pickle.dumps({"model": 1}, protocol=4))
    done = poet("write", "月", "--checkpoint", str(raw))
    assert done.returncode == 2 and "普通的 pickle 文件" in done.stderr and "被截断" not in done.stderr
    assert "Warning" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "checkpoint.pt").write_bytes(checkpoint.read_bytes())
    done = poet("write", "月", "--seed", "4", "--checkpoint", str(tmp_path / "run"))
    assert done.returncode == 0 and "月" in done.stdout, done.stdout + done.stderr
    done = poet("write", "月", "--checkpoint", str(tmp_path))
    assert done.returncode == 2 and "是一个文件夹" in done.stderr


def test_eval_baseline_uses_the_same_val_poems(model):
    from poetry_gpt.bigram import BigramModel, bigram_baseline
    from poetry_gpt.data import load_poems
    from poetry_gpt.metrics import evaluate_model

    result = evaluate_model(model, TOK, n_prompts=1, val_poems=40)
    expected = BigramModel.fit(load_poems("train"), TOK).cross_entropy(load_poems("val", 40))
    assert result["val_poems"] == 40
    assert result["bigram_cross_entropy"] == pytest.approx(expected)
    assert result["bigram_cross_entropy"] != pytest.approx(bigram_baseline("val"), abs=1e-3)


def test_eval_table_fits_80_columns(poet, checkpoint):
    done = poet("eval", "--checkpoint", str(checkpoint), "--prompts", "1", "--val-poems", "10",
                env={"COLUMNS": "80"}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "（第07课）" in re.sub(r"[\s│]", "", done.stdout)  # 折行可以，截掉不行


def test_line_ends_are_the_choices_the_vocabulary_has():
    """LINE_END_CHOICES 列了 ！，汉字表里却没有它（语料里没有一首诗用）：Constraint 只用表里有的，
    表里有 ！ 时（比如重建语料后）才用上。"""
    assert LINE_END_CHOICES == ("，？！", "。？！")
    assert "！" not in TOK and all(c in TOK for c in "，。？")
    ends = lambda tok: ["".join(tok.tokens[i] for i in e.tolist()) for e in Constraint(tok, 5, rules=PLAIN).ends]
    assert ends(TOK) == ["，？", "。？"]
    assert ends(Tokenizer(TOK.tokens + ["！"])) == ["，？！", "。？！"]


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


def test_write_command_takes_a_variant_character(poet):
    done = poet("write", "鎗", "--json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    poem = json.loads(done.stdout)[0]
    assert "枪" in poem["text"] and "鎗" not in poem["text"]


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
