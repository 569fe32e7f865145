"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/04/experiment.py。

bad_records.json 是从 chinese-poetry 2.0.1（MIT）原样摘出的 14 条原始记录，见本课 README。
"""

from collections import Counter
from pathlib import Path

from poetry_gpt.common import read_json
from poetry_gpt.data import BadRecord, clean_record, load_poems, poem_body, to_simplified
from poetry_gpt.labs import setup_experiment, show, table

setup_experiment()


def verdict(paragraphs):
    """clean_record 对这几句的结论：通过时返回清洗后的全文，否则返回剔除的原因。"""
    try:
        return clean_record({"paragraphs": paragraphs})["text"]
    except BadRecord as e:
        return e.reason


records = read_json(Path(__file__).with_name("bad_records.json"))
show("原始记录（条）", len(records))
show("第一条的字段", list(records[0]))
show("原始的 paragraphs", records[0]["paragraphs"])

# 1. 每条记录过一遍 clean_record：要么得到一首绝句，要么得到 BadRecord 和原因
rows, kept, reasons = [], [], Counter()
for raw in records:
    original = "".join(raw["paragraphs"])
    try:
        poem = clean_record(raw)
        kept.append((raw, poem))
        rows.append([to_simplified(raw["title"])[:11], original[:16], f"收入：{poem['form']}"])
    except BadRecord as e:
        reasons[e.reason] += 1
        rows.append([to_simplified(raw["title"])[:11], original[:16] or "（空）", e.reason])
table(["题目（前 11 字）", "原文（前 16 字）", "原因 / 结果"], rows, title="clean_record 逐条检查")
show("收入几条", len(kept))
show("各原因条数", dict(reasons))

# 2. 通过的几首：标点和繁简都换了什么
for raw, poem in kept:
    before = "".join(raw["paragraphs"])
    changed = sorted({f"{a}→{b}" for a, b in zip(before, poem["text"]) if a != b})
    show(f"《{poem['title']}》原文", before)
    show("  清洗后", poem["text"])
    show("  改动的字与标点", " ".join(changed))

# 3. 半角标点也会被换成全角：半角冒号 : 变成逗号，多切出一句
raw = next(r for r in records if ":" in "".join(r["paragraphs"]))
first_two = raw["paragraphs"][:2]  # 这首律诗的前两联，本该是四句五言
show("前两联原文", "".join(first_two))
show("  交给 clean_record", verdict(first_two))
show("  删掉半角冒号再交", verdict([p.replace(":", "") for p in first_two]))

# 4. 与随课程发布的语料对照：通过清洗不等于一定收入，建语料时还要按正文去重
poems = load_poems()
first_with_body = {}
for p in poems:
    first_with_body.setdefault(poem_body(p["text"]), p)
rows = []
for _, poem in kept:
    first = first_with_body[poem_body(poem["text"])]
    rows.append([poem["title"], first["id"] == poem["id"], f"{first['author']}《{first['title']}》"])
table(["题目", "这条记录被收入", "语料里留下的那首"], rows, title="去重：同样的正文只留第一首")

# 5. 逐字繁转简的局限：一个字该不该简化，要看它在哪个词里
show("逐字转换 乾坤（应不变）", to_simplified("乾坤"))
show("逐字转换 乾燥（应为干燥）", to_simplified("乾燥"))
show("语料里“乾坤”出现（首）", sum("乾坤" in p["text"] for p in poems))
show("语料里“干坤”出现（首）", sum("干坤" in p["text"] for p in poems))
