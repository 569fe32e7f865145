"""维护者脚本：从 npm 包 chinese-poetry 2.0.1 的压缩包重建 data/ 下的全部语料文件。

学习者用不到它（data/ 已随课程发布）。重建步骤::

    npm pack chinese-poetry@2.0.1            # 得到 chinese-poetry-2.0.1.tgz
    .venv/bin/pip install opencc             # 只有维护者需要 OpenCC
    .venv/bin/python -m poetry_gpt.corpus build --from chinese-poetry-2.0.1.tgz

同一个压缩包重建，得到的文件逐字节相同。
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path

from .common import DEFAULT_DATA, atomic_write_text
from .data import SPECIAL, BadRecord, Tokenizer, clean_record, is_hanzi, poem_body, split_of

_POET_FILE = re.compile(r"package/dist/quantangshi/poet\.(tang|song)\.(\d+)\.json$")
_STRAINS_FILE = re.compile(r"package/dist/strains/json/poet\.(tang|song)\.(\d+)\.json$")
DYNASTY = {"tang": "唐", "song": "宋"}


def read_tarball(path: Path):
    """按（朝代、文件序号）的固定顺序返回原始诗与平仄标注：([(dynasty, raw)], {id: strains})。"""
    poems, strains = [], {}
    with tarfile.open(path, "r:gz") as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}

        def ordered(pattern):
            found = [(pattern.match(n), n) for n in members]
            return sorted(((m.group(1) != "tang", int(m.group(2)), n) for m, n in found if m))

        for is_song, _, name in ordered(_POET_FILE):
            for raw in json.loads(tar.extractfile(members[name]).read().decode("utf-8")):
                poems.append(("宋" if is_song else "唐", raw))
        for _, _, name in ordered(_STRAINS_FILE):
            for item in json.loads(tar.extractfile(members[name]).read().decode("utf-8")):
                strains[item["id"]] = "".join(item.get("strains") or [])
    return poems, strains


def build_records(poems, convert):
    """清洗、去重（按正文）、分 train/val/test。返回 (records, 各剔除原因的计数)。"""
    records, seen, rejected = [], set(), Counter()
    for dynasty, raw in poems:
        try:
            rec = clean_record({**raw, "dynasty": dynasty}, convert)
        except BadRecord as e:
            rejected[e.reason] += 1
            continue
        body = poem_body(rec["text"])
        if body in seen:
            rejected["重复"] += 1
            continue
        seen.add(body)
        rec["split"] = split_of(rec["id"])
        records.append(rec)
    return records, rejected


def build_t2s(poems, records, convert) -> dict[str, str]:
    """逐字的繁→简对照表：原始语料里每个字单独交给 OpenCC，结果是另一个单字的就记下。

    按词转换后仍留在简体语料里的字（如“乾坤”的“乾”）不收：它们本身就是简体文本里的正常用字，
    逐字改掉反而会错。
    """
    kept = {ch for r in records for ch in r["text"]}
    chars = sorted({ch for _, raw in poems for ch in "".join(raw.get("paragraphs") or []) + raw.get("title", "")
                    if is_hanzi(ch) and ch not in kept})
    table = {}
    for ch in chars:
        out = convert(ch)
        if len(out) == 1 and out != ch:
            table[ch] = out
    return table


def build_tones(records, strains, poems, convert, tokenizer) -> dict[str, str]:
    """每个字的平仄：统计 strains 里这个字被标为平、仄的次数，八成以上一致取之，否则记为“平仄”（多音）。"""
    by_id = {raw.get("id"): raw for _, raw in poems}
    votes: dict[str, Counter] = {}
    for rec in records:
        marks, raw = strains.get(rec["id"]), by_id.get(rec["id"])
        if not marks or raw is None:
            continue
        text = convert("".join(raw["paragraphs"]))
        if len(text) != len(marks):
            continue
        for ch, mark in zip(text, marks):
            if mark in "平仄" and is_hanzi(ch):
                votes.setdefault(ch, Counter())[mark] += 1
    tones = {}
    for ch in tokenizer.tokens[len(SPECIAL):]:
        v = votes.get(ch)
        if not v:
            continue
        ping, ze = v["平"], v["仄"]
        tones[ch] = "平" if ping >= 0.8 * (ping + ze) else "仄" if ze >= 0.8 * (ping + ze) else "平仄"
    return tones


def summarize(records, rejected, tokenizer) -> dict:
    """SOURCE.md 与测试用到的数字。"""
    splits = Counter(r["split"] for r in records)
    forms = Counter(r["form"] for r in records)
    dynasties = Counter(r["dynasty"] for r in records)
    val_text = "".join(r["text"] for r in records if r["split"] == "val")
    unk = sum(ch not in tokenizer for ch in val_text)
    return {
        "poems": len(records),
        "characters": sum(len(poem_body(r["text"])) for r in records),
        "distinct_characters": len({ch for r in records for ch in poem_body(r["text"])}),
        "vocab_size": len(tokenizer),
        "val_unk_share": round(unk / max(len(val_text), 1), 6),
        "splits": dict(sorted(splits.items())),
        "forms": dict(sorted(forms.items())),
        "dynasties": dict(sorted(dynasties.items())),
        "rejected": dict(rejected.most_common()),
    }


def write_source_md(stats: dict, out: Path) -> None:
    rows = "\n".join(f"| {k} | {v} |" for k, v in stats["rejected"].items())
    text = f"""# 语料来源

- 来源：npm 包 `chinese-poetry` 2.0.1（MIT 许可，Copyright (c) 2016 JackeyGao），
  目录 `dist/quantangshi` 的 poet.tang.* 与 poet.song.*（繁体），以及 `dist/strains`（每首诗的平仄标注）。
- 处理：OpenCC `t2s` 转简体；只留四句、每句全 5 字或全 7 字的绝句；丢掉有缺字（□）、括注、
  拉丁字母或数字、其他符号的记录；按正文去重；按 id 的 SHA-1 哈希分成 train / val / test（约 90/5/5）。
- 重建：`npm pack chinese-poetry@2.0.1`，`.venv/bin/pip install opencc`，
  `.venv/bin/python -m poetry_gpt.corpus build --from chinese-poetry-2.0.1.tgz`。结果逐字节相同。

## 数字

| 项目 | 数值 |
|---|---|
| 诗（首） | {stats['poems']} |
| 正文汉字（不含标点） | {stats['characters']} |
| 不同的字 | {stats['distinct_characters']} |
| 汉字表大小（含 {len(SPECIAL)} 个特殊标记，训练集出现 ≥ 2 次的字与标点） | {stats['vocab_size']} |
| val 中 `<unk>` 所占比例 | {stats['val_unk_share']:.4%} |
| 划分 | {stats['splits']} |
| 体裁 | {stats['forms']} |
| 朝代 | {stats['dynasties']} |

## 剔除的记录

| 原因 | 首数 |
|---|---|
{rows}

## 文件

- `poems.jsonl`：每行一首：id、dynasty、author、title、form、text（带标点）、split。
- `vocab.json`：汉字表（特殊标记在前，之后按训练集频数降序、同频按码位），附频数与文档频数。
- `t2s.json`：逐字繁→简对照表，供 `./poet write` 接受繁体输入。
- `tones.json`：字 → 平 / 仄 / 平仄（多音），由 strains 统计。
- `stats.json`：上表的数字。
- `model.pt`：随课程发布的模型，见 [MODEL.md](MODEL.md)（它不由本脚本生成）。
"""
    atomic_write_text(out / "SOURCE.md", text)


def build(tarball: Path, out: Path = DEFAULT_DATA) -> dict:
    """从压缩包重建 out/ 下的语料文件，返回统计数字。"""
    try:
        import opencc
    except ImportError:
        sys.exit("建语料需要 OpenCC：先运行 .venv/bin/pip install opencc")
    convert = opencc.OpenCC("t2s").convert
    poems, strains = read_tarball(tarball)
    records, rejected = build_records(poems, convert)
    tokenizer = Tokenizer.build(r["text"] for r in records if r["split"] == "train")
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    atomic_write_text(out / "poems.jsonl", lines)
    tokenizer.save(out / "vocab.json")
    dump = lambda obj: json.dumps(obj, ensure_ascii=False, indent=0, sort_keys=True) + "\n"
    atomic_write_text(out / "t2s.json", dump(build_t2s(poems, records, convert)))
    atomic_write_text(out / "tones.json", dump(build_tones(records, strains, poems, convert, tokenizer)))
    stats = summarize(records, rejected, tokenizer)
    atomic_write_text(out / "stats.json", json.dumps(stats, ensure_ascii=False, indent=1) + "\n")
    write_source_md(stats, out)
    return stats


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m poetry_gpt.corpus", description="从 chinese-poetry 2.0.1 重建 data/")
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="重建语料")
    b.add_argument("--from", dest="tarball", type=Path, required=True, help="chinese-poetry-2.0.1.tgz 的路径")
    b.add_argument("--out", type=Path, default=DEFAULT_DATA, help="输出目录（默认 data/）")
    args = parser.parse_args(argv)
    if not args.tarball.is_file():
        sys.exit(f"找不到压缩包：{args.tarball}")
    stats = build(args.tarball, args.out)
    print(json.dumps({k: v for k, v in stats.items() if k != "rejected"}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
