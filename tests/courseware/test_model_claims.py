"""只有 data/MODEL.md 讲随课程发布的模型怎样训练的：别的文字提到“发布的模型”时，说出的预设、优化器、宽度与层数
要与 data/model.pt 里存的训练设置相同，也不许把发布用的预设说成“试过、没有发布”。

换了模型、换了配方，课文与命令的说明里过期的说法由这里查出来（数由 figures.py 查，名字由 names.py 查）。
“上一版发布的模型”“以前发布的”说的是旧模型，不查；data/MODEL.md 就是记录本身，不查；查的文件与 names.py 的相同
（更新记录记的是当时的事，不在其中）。
"""

import ast
import io
import re
import tokenize
from dataclasses import fields

import pytest
import torch

from courseware.selfcheck.names import texts
from poetry_gpt.common import DEFAULT_DATA, ROOT
from poetry_gpt.settings import OPTIMIZERS
from poetry_gpt.train_config import PRESETS, TrainConfig

SHIPPED = re.compile(r"(?:随课程|现在)?发布的(?:模型)?")
PAST = re.compile(r"(?:上一版|以前|之前|换下来的|旧的?)\s*$")
PRESET = re.compile(rf"(?<![\w])({'|'.join(PRESETS)})(?!\w)")
OPTIMIZER = re.compile(rf"(?<![\w])({'|'.join(OPTIMIZERS)})(?!\w)", re.IGNORECASE)
WIDTH = re.compile(r"(?<![各每])宽(?:度)?\s*(?:C\s*=\s*)?(\d+)(?!\d|\s*个)")
LAYERS = re.compile(r"(?<!第)(?<!第 )(?<!\d)(\d+)\s*层")  # “第 0 层”是编号，不是层数
NOT_SHIPPED = "试过、没有发布|试过的|没有发布"
OPEN, CLOSE, STOP = "（(", "）)", "，。；：！？\n"
SKIP = {"data/MODEL.md"}


def shipped_facts() -> dict:
    """data/model.pt 里存的训练设置：预设（数据与关键词的设置与哪个预设相同）、优化器、宽度、层数。"""
    stored = torch.load(DEFAULT_DATA / "model.pt", map_location="cpu", weights_only=True)["train_config"]
    data_fields = {"fresh_keywords", "regulated", "quatrain_repeats", "finetune_share", "keyword_dropout"}
    default = {f.name: f.default for f in fields(TrainConfig) if f.name in data_fields}
    (preset,) = [
        name
        for name, config in PRESETS.items()
        if all(getattr(config, k) == stored.get(k, default[k]) for k in data_fields)
    ]
    model = stored["model"]
    return {"preset": preset, "optimizer": stored["optimizer"], "width": model["width"], "layers": model["n_layers"]}


def window(text: str, start: int, end: int) -> str:
    """“发布的模型”这一处说的那一段：在括号里就是整个括号（括号以它开头时，连同括号前面被注释的那个词，
    如“`base`（随课程发布的模型）”）；不在括号里就是前后到逗号、句号为止的一小句（其中的括号整个算进去）。"""
    stops = STOP.replace("，", "") if _inside(text, start) else STOP
    depth, i = 0, start - 1
    while i >= 0 and not (depth == 0 and (text[i] in stops or text[i] in OPEN)):
        depth += (text[i] in CLOSE) - (text[i] in OPEN)
        i -= 1
    depth, j = 0, end
    while j < len(text) and not (depth == 0 and (text[j] in stops or text[j] in CLOSE)):
        depth += (text[j] in OPEN) - (text[j] in CLOSE)
        j += 1
    found = text[i + 1 : j]
    if i >= 0 and text[i] in OPEN and i + 1 == start:  # 注释前面那个词：取到前一个空白或标点
        k = i - 1
        while k >= 0 and not text[k].isspace() and text[k] not in STOP + OPEN + CLOSE:
            k -= 1
        found = text[k + 1 : i] + found
    return found


def _inside(text: str, at: int) -> bool:
    """at 在括号里：括号里的逗号不断开这一段。"""
    depth = 0
    for c in text[:at]:
        depth += (c in OPEN) - (c in CLOSE)
    return depth > 0


def claims(text: str, facts: dict) -> list[str]:
    """text 里与发布的模型不符的说法（每条是那一段文字与原因）。"""
    found = []
    for m in SHIPPED.finditer(text):
        if PAST.search(text[max(0, m.start() - 8) : m.start()]):
            continue
        part = window(text, m.start(), m.end())
        said = {
            "preset": {p for p in PRESET.findall(part)},
            "optimizer": {o.lower() for o in OPTIMIZER.findall(part)},
            "width": {int(w) for w in WIDTH.findall(part)},
            "layers": {int(n) for n in LAYERS.findall(part)},
        }
        for key, values in said.items():
            wrong = values - {facts[key]}
            if wrong:
                found.append(f"“{part}”：{key} 写成 {sorted(wrong)}，发布的模型是 {facts[key]}")
    tried = re.compile(
        rf"(?:{NOT_SHIPPED})[^。；\n]{{0,12}}?(?<![\w]){facts['preset']}(?!\w)"
        rf"|(?<![\w]){facts['preset']}(?!\w)[^。；\n]{{0,24}}?(?:{NOT_SHIPPED})"
    )
    found += [f"“{m.group()}”：发布的模型就是 {facts['preset']} 预设训练的" for m in tried.finditer(text)]
    return found


def prose(path: str) -> list[tuple[int, str]]:
    """一个文件里给人读的文字：Markdown 逐行；Python 的每个字符串常量（相邻的字符串拼成一个）与注释。"""
    source = (ROOT / path).read_text(encoding="utf-8")
    if path.endswith(".md"):
        return list(enumerate(source.splitlines(), start=1))
    texts = [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    texts += [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    return texts


FACTS = shipped_facts()


def test_the_shipped_model_is_what_model_md_says():
    """MODEL.md 自己写的命令与优化器就是 data/model.pt 里存的。"""
    text = (ROOT / "data" / "MODEL.md").read_text(encoding="utf-8")
    assert f"--preset {FACTS['preset']}" in text and FACTS["optimizer"].capitalize() in text
    assert f"宽 {FACTS['width']}" in text and f"{FACTS['layers']} 层" in text


def test_no_text_says_otherwise_about_the_shipped_model():
    files = [f for f in texts() if f not in SKIP and (ROOT / f).is_file()]
    wrong = [f"{path}:{line}：{claim}" for path in files for line, text in prose(path) for claim in claims(text, FACTS)]
    assert wrong == [], "\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    "text, stale",
    [
        ("`--preset tiny`（几十秒）或 `base`（随课程发布的模型）", True),
        ("随课程发布的模型用 ./poet train --preset base 训练（见 data/MODEL.md）", True),
        ("regulated：加上律诗材料的更大模型（试过、没有发布，见 data/MODEL.md）", True),
        ("试过的 regulated 预设还在每一步重抽关键词", True),
        ("- 固定的（tiny 与 base 预设，随课程发布的模型）：每首绝句的样本编好一次", True),
        ("随课程发布的模型用 AdamW 训练", True),
        ("随课程发布的模型（宽 128、4 层）", True),
        ("现在发布的模型用 `--preset regulated` 训练，关键词个数每步从 0–4 里抽", False),
        ("上一版随课程发布的模型（base 预设）就是用这一课的关键词训练的", False),
        ("假设 base 每步约 0.25 秒（随课程发布的模型更宽，一步要一秒多）", False),
        ("（发布的模型一共 6 层，编号 0–5；每层 7 个头，各宽 32）", False),
        ("发布的模型训练时 k 是 0–4，base 预设是 1–3", False),
        ("随课程发布的模型第 0 层的注意力权重", False),
        ("发布的模型是 224 宽 7 个头", False),
        ("随课程发布的模型 `data/model.pt`（宽 224、6 层）用 `./poet train --preset regulated`（Muon 优化器）", False),
    ],
)
def test_stale_claims_are_caught(text, stale):
    facts = {"preset": "regulated", "optimizer": "muon", "width": 224, "layers": 6}
    assert bool(claims(text, facts)) == stale, claims(text, facts)
