"""文字里点到的名字要真有（courseware/selfcheck/names.py）：整个仓库的说明都过得去，改错一个名字就查得出。"""

import re

import pytest

from courseware.selfcheck.names import OLD_NAMES, _tracked, problem, texts, unknown_names
from poetry_gpt.common import ROOT

TRACKER = re.compile(r"议题\s*#?\s*\d|\bissues?\b(?:\s*#?\s*\d)?", re.IGNORECASE)
"""仓库之外的议题追踪：“议题 26”“issue #13”“issue 要的”。读者手里只有仓库，理由要写进文字本身。"""


def test_every_name_the_texts_mention_exists():
    found = texts()
    assert "lessons/24/README.md" in found and "ARCHITECTURE.md" in found and "poetry_gpt/model.py" in found
    assert not set(OLD_NAMES) & set(found)  # 那里记的是旧名字
    assert [p for path in found for p in unknown_names(path)] == []


@pytest.mark.parametrize(
    "name, why",
    [
        ("verse_rules.STOCK_OPENINGS", "课程包里没有叫 verse_rules 的模块"),  # 第 24 课以前这样写错过
        ("settings.STOCK_OPENINGS", None),
        ("train.make_optimiser()", "poetry_gpt.train 里没有 make_optimiser"),
        ("train.make_optimizer()", None),
        ("grading.shortcuts.NOPE", "courseware.grading.shortcuts 里没有 NOPE"),
        ("evaluation.evaluate_model", None),
        (
            "build.SiteError",
            "build 可以指 courseware.corpus.build、courseware.site.build：写出上一级的包，只指其中一个",
        ),
        ("site.build.SiteError", None),
        ("corpus.build.SiteError", "courseware.corpus.build 里没有 SiteError"),  # 只在它指的那一个模块里找
        ("model.eval()", None),  # 模型实例的方法
        ("verse.condition", "poetry_gpt.verse 里没有 condition"),  # 挪到 data 以后；generate.Poem 有同名字段也不算
        ("data.condition()", None),
        (
            "shortcuts.rhyme",
            "courseware.grading.shortcuts 里没有 rhyme",
        ),  # settings.Rules 的字段不在 grading.shortcuts 里
        ("loss.item()", None),  # 张量的方法到处都算
        ("nn.GELU", None),
        ("nn.Gelu", "torch.nn 里没有 Gelu"),
        ("poetry_gpt/verse.py", None),
        ("poetry_gpt/verse_rules.py", "仓库里没有这个文件或文件夹"),
        ("lessons/NN/README.md", None),
        ("results/eval.json", None),
        ("figures/eval.json", "仓库里没有这个文件或文件夹"),  # 以前记录放在 figures/
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
    monkeypatch.setattr("courseware.selfcheck.names.ROOT", tmp_path)
    assert unknown_names("x.md") == [
        "x.md:1: `verse_rules.STOCK`：课程包里没有叫 verse_rules 的模块",
        "x.md:4: `./poet train --preset tiny --fast`：./poet train 没有 --fast 这个选项",
    ]


def test_no_text_points_to_an_issue_tracker_outside_the_repository():
    files = [f for f in _tracked() if f.endswith((".py", ".md", ".toml")) and (ROOT / f).is_file()]
    assert len(files) > 100
    found = [
        f"{path}:{n}: {m.group()}"
        for path in files
        for n, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), start=1)
        for m in TRACKER.finditer(line)
        if path != "tests/courseware/test_names.py"
    ]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(
    "text", ["（议题 33）", "议题 #13 测到的", "issue #25 的目标", "在 issue 要的 2 秒以内", "Issue 34"]
)
def test_tracker_references_are_recognised(text):
    assert TRACKER.search(text)


@pytest.mark.parametrize("text", ["UAX #14", "argument #1 'indices'", "§3.2.2 Multi-Head Attention"])
def test_other_numbers_with_signs_are_not_tracker_references(text):
    assert not TRACKER.search(text)
