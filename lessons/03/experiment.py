"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/03/experiment.py [种子]。

种子决定最后随机抽出哪一首诗；不写时用 26，每次运行结果相同。
"""

import itertools
import re
import sys
from collections import Counter

import torch

from poetry_gpt.common import COURSE_SEED, DEFAULT_DATA, read_jsonl
from poetry_gpt.data import LINE_ENDS, poem_body
from poetry_gpt.labs import line_plot, setup_experiment, show, table

seed = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else COURSE_SEED
setup_experiment(seed)

poems = read_jsonl(DEFAULT_DATA / "poems.jsonl")  # 每行一首，读成 dict 的列表
show("诗的首数", len(poems))
show("第一条记录", poems[0])

# 1. 按体裁、朝代、划分计数
forms = Counter(p["form"] for p in poems)
dynasties = Counter(p["dynasty"] for p in poems)
splits = Counter(p["split"] for p in poems)
both = Counter((p["dynasty"], p["form"]) for p in poems)
table(
    ["朝代", "五言绝句", "七言绝句", "合计"],
    [[d, both[d, "五言绝句"], both[d, "七言绝句"], dynasties[d]] for d in ("唐", "宋")]
    + [["合计", forms["五言绝句"], forms["七言绝句"], len(poems)]],
    title="朝代 × 体裁（首）",
)
table(
    ["划分", "首数", "占比"],
    [[s, splits[s], splits[s] / len(poems)] for s in ("train", "val", "test")],
    title="train / val / test",
)

# 2. 字频：只数汉字，不数标点
chars = Counter()
for p in poems:
    chars.update(poem_body(p["text"]))
total = sum(chars.values())
show("正文汉字总数", total)
show("不同的字", len(chars))
show("标点个数（，。？！）", sum(len(p["text"]) for p in poems) - total)
top = chars.most_common(20)
table(
    ["名次", "字", "次数", "占全部汉字"],
    [[i + 1, c, n, n / total] for i, (c, n) in enumerate(top)],
    title="出现最多的 20 个字",
)


def chars_to_cover(share: float) -> int:
    """按频数从高到低累加，要多少个不同的字才能覆盖 share 比例的正文。"""
    running = 0
    for rank, (_, n) in enumerate(chars.most_common(), start=1):
        running += n
        if running >= share * total:
            return rank
    return len(chars)


table(
    ["覆盖正文的比例", "需要的不同字数", "占不同字的比例"],
    [[f"{s:.0%}", chars_to_cover(s), chars_to_cover(s) / len(chars)] for s in (0.5, 0.9, 0.99)],
    title="少数常用字撑起大部分正文",
)
# 覆盖曲线：前 n 个最常见的字合起来占正文的多少；每 100 个字取一个点，画到 7920 个
covered = list(itertools.accumulate(n for _, n in chars.most_common()))
line_plot(
    {"前 n 个字覆盖的正文": [(n, covered[n - 1] / total) for n in range(1, len(covered) + 1, 100)]},
    hlines={"90%": 0.9, "99%": 0.99},
    y_limits=(0.0, 1.0),
    title="覆盖曲线：按次数排好的前 n 个字占正文的比例",
    x_label="个字",
    digits=1,
)
once = [c for c, n in chars.items() if n == 1]
show("只出现一次的字（个）", len(once))
show("其中几个", "".join(sorted(once)[:12]))

# 3. 诗人：谁写得最多，多少人只留下一首
authors = Counter(p["author"] for p in poems)
table(["诗人", "首数"], authors.most_common(8), title="最多产的诗人")
single = [a for a, n in authors.items() if n == 1]  # 按在语料里第一次出现的顺序
show("诗人总数", len(authors))
show("只有一首的诗人（位）", len(single))
show("其中几位", "、".join(single[:8]))

# 4. 随机读一首：换一个种子就换一首
i = int(torch.randint(len(poems), (1,)))
p = poems[i]
show("种子", seed)
show(f"第 {i} 首", f"{p['dynasty']}·{p['author']}《{p['title']}》（{p['form']}，{p['split']}）")
for k, line in enumerate(re.findall(f"[^{LINE_ENDS}]+[{LINE_ENDS}]", p["text"]), start=1):
    show(f"第 {k} 句", line)
