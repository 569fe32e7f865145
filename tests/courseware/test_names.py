"""文字里点到的名字要真有（courseware/names.py）：整个仓库的说明都过得去，改错一个名字就查得出。"""

import pytest

from courseware.names import problem, texts, unknown_names


def test_every_name_the_texts_mention_exists():
    found = texts()
    assert "lessons/24/README.md" in found and "ARCHITECTURE.md" in found and "poetry_gpt/model.py" in found
    assert "CHANGELOG.md" not in found  # 那里记的是旧名字
    assert [p for path in found for p in unknown_names(path)] == []


@pytest.mark.parametrize(
    "name, why",
    [
        ("verse_rules.STOCK_OPENINGS", "课程包里没有叫 verse_rules 的模块"),  # 第 24 课以前这样写错过
        ("settings.STOCK_OPENINGS", None),
        ("train.make_optimiser()", "poetry_gpt.train 里没有 make_optimiser"),
        ("train.make_optimizer()", None),
        ("grading.rules.NOPE", "courseware.grading.rules 里没有 NOPE"),
        ("evaluation.evaluate_model", None),  # 两个模块叫 evaluation：有一个对得上就行
        ("model.eval()", None),  # 模型实例的方法
        ("verse.condition", "poetry_gpt.verse 里没有 condition"),  # 挪到 data 以后；generate.Poem 有同名字段也不算
        ("data.condition()", None),
        ("rules.rhyme", "courseware.grading.rules 里没有 rhyme"),  # settings.Rules 的字段不在 grading.rules 里
        ("loss.item()", None),  # 张量的方法到处都算
        ("nn.GELU", None),
        ("nn.Gelu", "torch.nn 里没有 Gelu"),
        ("poetry_gpt/verse.py", None),
        ("poetry_gpt/verse_rules.py", "仓库里没有这个文件或文件夹"),
        ("lessons/NN/README.md", None),
        ("results/eval.json", None),
        ("figures/eval.json", "仓库里没有这个文件或文件夹"),  # 议题 38 以前记录放在 figures/
        ("batches.py", None),
        ("sample.py", "仓库里没有叫这个名字的 Python 文件"),
        ("./poet write 月 --drafts 8", None),
        ("./poet write 月 --draft 8", "./poet write 没有 --draft 这个选项"),
        ("./poet rite 月", "没有 ./poet rite 这个命令"),
        ("tok.tokens", None),  # 变量：不查
        ("model.pt", None),  # 数据文件：不查
    ],
)
def test_a_wrong_name_is_caught(name, why):
    assert problem(name) == why


def test_markdown_commands_in_bash_blocks_and_inline_code_are_checked(tmp_path, monkeypatch):
    text = "先运行 `./poet lesson 9`，再看 `verse_rules.STOCK`。\n\n```bash\n./poet train --preset tiny --fast\n```\n"
    (tmp_path / "x.md").write_text(text, encoding="utf-8")
    monkeypatch.setattr("courseware.names.ROOT", tmp_path)
    assert unknown_names("x.md") == [
        "x.md:1: `verse_rules.STOCK`：课程包里没有叫 verse_rules 的模块",
        "x.md:4: `./poet train --preset tiny --fast`：./poet train 没有 --fast 这个选项",
    ]
