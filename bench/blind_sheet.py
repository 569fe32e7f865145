"""盲评的材料：模型两种写法各 20 首与 val 里人写的 20 首，打乱、不标来源，编成 1–60 号。

20 个关键词（灯 钟 舟 竹 松 烟 霜 莺 楼 桥 溪 客 泪 琴 菊 荷 蝉 渔 寺 笛），五言、七言交替，第 i 个用种子
SEED + i。诗都出自 ``--model``（默认 data/model.pt）。两张卷子：

- sheet.md / key.json：DRAFTS 份草稿、按 likelihood 留一份（``--drafts 8``）、``--drafts 1``（同样的种子，
  正是第一份草稿）、人写的诗（val 里同体裁、含这个关键词的诗，按种子 SEED 抽，可重现）。
  留下的正是第一份草稿时，卷子上同一首诗出现两次（key.json 的 same_as_drafts 写明）。
- sheet2.md / key2.json：按 coherence 留下的、按 likelihood 留下的（同一批草稿）、人写的诗（另抽的 20 首）。
  两种分数挑中同一份草稿时，卷子上同一首诗出现两次（key2.json 的 same_as 写明）。

给了 ``--old 旧模型``（换模型时：新模型与换下来的模型比）时多一张：

- sheet3.md / key3.json：``--model`` 与 ``--old`` 各按 ``./poet write`` 的默认设置写的（同样的关键词与种子）、
  人写的诗（又另抽的 20 首）。两个模型写出同一首诗时，卷子上出现两次（key3.json 的 same_as_old 写明）。

卷子上只有编号和诗；来源、关键词、种子只在 key*.json 里。读者给每首打 1–5 分。

    .venv/bin/python bench/blind_sheet.py --out /tmp/blind34
    .venv/bin/python bench/blind_sheet.py --model ~/poet-runs/ship5/model.pt --old data/model.pt --out /tmp/blind33
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import torch

from courseware.cli.parser import ChineseParser
from poetry_gpt.checkpoint import SHIPPED_MODEL, load_model
from poetry_gpt.data import default_tokenizer, form_of, load_poems
from poetry_gpt.generate import write_poems

KEYWORDS = "灯钟舟竹松烟霜莺楼桥溪客泪琴菊荷蝉渔寺笛"
SEED = 3400
DRAFTS = 8
"""每首写几份草稿再挑一份（data/MODEL.md 的盲评用的是 8）。"""
INSTRUCTIONS = (
    "下面 60 首五言、七言绝句，来源各不相同，次序是打乱的。请逐首读，按“读起来像不像一首好诗”"
    "（通顺、前后连贯、有意境）给 1–5 分：1 不通，2 勉强成句，3 通顺但平淡，4 好，5 很好。"
    "不必查任何资料，凭读感打分；每首写下编号与分数即可。\n"
)


def human_choices(keyword: str, form: int, rng: random.Random, taken: set[str]) -> dict:
    """val 里体裁为 form、正文含 keyword、还没用过的一首人写的诗（rng 抽）。"""
    name = form_of(line_length=form).name
    pool = [p for p in load_poems("val") if p["form"] == name and keyword in p["text"] and p["text"] not in taken]
    poem = rng.choice(pool)
    taken.add(poem["text"])
    return {"text": poem["text"], "id": poem["id"], "title": poem["title"], "author": poem["author"]}


def sheet(entries: list[dict], rng: random.Random) -> tuple[str, dict]:
    """打乱 entries（各带 text 与来源信息），返回 (卷子的 Markdown, 编号 → 来源)。"""
    order = list(range(len(entries)))
    rng.shuffle(order)
    lines = ["# 绝句盲评", "", INSTRUCTIONS]
    key = {}
    for number, i in enumerate(order, start=1):
        entry = entries[i]
        text = entry["text"]
        body = "".join(ch + ("  \n" if ch in "，。？！" else "") for ch in text).rstrip()
        lines += [f"**{number}.**", "", body, "", "分数：____", ""]
        key[number] = dict(entry)
    return "\n".join(lines), key


def main() -> None:
    parser = ChineseParser(description="盲评的卷子与答案")
    parser.add_argument("--out", default="/tmp/blind34", metavar="文件夹", help="写到哪里（默认 /tmp/blind34）")
    parser.add_argument("--model", default=str(SHIPPED_MODEL), metavar="存档", help="写诗的模型（默认 data/model.pt）")
    parser.add_argument("--old", metavar="存档", help="再出一张卷子：--model 与这个模型各 20 首、人写的 20 首")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    tok = default_tokenizer()
    model, _ = load_model(args.model, tok)
    old = load_model(args.old, tok)[0] if args.old else None
    rng = random.Random(SEED)
    rng_old = random.Random(SEED + 33)  # 卷三另用一个：给不给 --old，卷一、卷二都一字不变
    taken: set[str] = set()
    first, second, third = [], [], []
    forms = [(5, 7)[i % 2] for i in range(len(KEYWORDS))]
    for i, kw in enumerate(KEYWORDS):
        form, seed = forms[i], SEED + i
        common = {"keyword": kw, "form": form, "seed": seed}
        likely = write_poems(model, tok, kw, form=form, seed=seed, drafts=DRAFTS)[0]
        single = write_poems(model, tok, kw, form=form, seed=seed, drafts=1)[0]
        coherent = write_poems(model, tok, kw, form=form, seed=seed, drafts=DRAFTS, score="coherence")[0]
        drafted = {"drafts": DRAFTS, "kept_seed": likely.seed, "log_prob": likely.log_prob}
        first.append({"source": "drafts-likelihood", "text": likely.text, **common, **drafted})
        first.append(
            {
                "source": "drafts-1",
                "text": single.text,
                **common,
                "log_prob": single.log_prob,
                "same_as_drafts": single.text == likely.text,  # 留下的正是第 0 份草稿：卷子上同一首出现两次
            }
        )
        first.append({"source": "human", **human_choices(kw, form, rng, taken), "keyword": kw, "form": form})
        second.append({"source": "drafts-likelihood", "text": likely.text, **common, **drafted})
        second.append(
            {
                "source": "drafts-coherence",
                "text": coherent.text,
                **common,
                "drafts": DRAFTS,
                "kept_seed": coherent.seed,
                "score": coherent.score,
                "same_as_likelihood": coherent.text == likely.text,  # 两种分数挑中同一份草稿
            }
        )
        second.append({"source": "human", **human_choices(kw, form, rng, taken), "keyword": kw, "form": form})
        if old is not None:
            # write_poems 的默认就是只写一份：--model 的那首正是上面的 single，不再写一遍
            old_poem = write_poems(old, tok, kw, form=form, seed=seed)[0]
            third.append({"source": "model", "text": single.text, **common})
            third.append(
                {"source": "old", "text": old_poem.text, **common, "same_as_old": single.text == old_poem.text}
            )
        print(f"{i + 1}/{len(KEYWORDS)} {kw}", flush=True)
    if old is not None:  # 卷三的人写的诗在卷一、卷二都抽完以后再抽
        for kw, form in zip(KEYWORDS, forms):
            third.append({"source": "human", **human_choices(kw, form, rng_old, taken), "keyword": kw, "form": form})
    sheets = (("", first, rng), ("2", second, rng), *((("3", third, rng_old),) if third else ()))
    for name, entries, shuffle_rng in sheets:
        text, key = sheet(entries, shuffle_rng)
        (out / f"sheet{name}.md").write_text(text, encoding="utf-8")
        (out / f"key{name}.json").write_text(json.dumps(key, ensure_ascii=False, indent=1), encoding="utf-8")
    same1 = sum(e.get("same_as_drafts", False) for e in first)
    same2 = sum(e.get("same_as_likelihood", False) for e in second)
    print(
        f"写好了：{out}/sheet.md、key.json、sheet2.md、key2.json；同一首诗出现两次的关键词：卷一 {same1} 个"
        f"（留下的是第 0 份草稿），卷二 {same2} 个（两种分数挑中同一份）"
        + (f"，卷三 {sum(e.get('same_as_old', False) for e in third)} 个（两个模型写得一样）" if third else "")
    )


if __name__ == "__main__":
    main()
