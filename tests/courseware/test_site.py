"""课程网站：每课一页、HTML 能解析、站内链接都通、第 09 课页面的各部分都在、坏链接让构建失败。"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html import escape
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import pytest
import torch
from rich.cells import cell_len

from courseware.catalogue import BY_NUMBER, CATALOGUE
from courseware.selfcheck.figures import agrees, contains
from courseware.site import build as site
from courseware.site.charts import chart_drawer
from courseware.site.charts.attention import lesson10, lesson11
from courseware.site.charts.blocks import lesson12, lesson13, lesson14
from courseware.site.charts.data_prep import lesson04, lesson05, lesson06, lesson07
from courseware.site.charts.embedding import lesson08, lesson09
from courseware.site.charts.resume import lesson18
from courseware.site.charts.scores import lesson25, lesson26
from courseware.site.charts.start import lesson01, lesson02, lesson03
from courseware.site.charts.training import lesson15, lesson16, lesson17, lesson19
from courseware.site.charts.writing import lesson20, lesson21, lesson22, lesson23, lesson24
from poetry_gpt.common import ROOT


class Page(HTMLParser):
    """记下标签是否配对、所有链接、id、<details> 里的文字。"""

    VOID = {"meta", "link", "br", "img", "hr", "input", "rect", "line", "polyline", "path", "circle"}

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.details: list[str] = []
        self.anchors: list[tuple[str, str]] = []  # (href, 链接文字)
        self._href: str | None = None
        self._text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag not in self.VOID:
            self.stack.append(tag)
        for name in ("href", "src"):
            if attrs.get(name) is not None:
                self.links.append(attrs[name])
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "details":
            self.details.append("")
        if tag == "a":
            self._href, self._text = attrs.get("href"), []

    def handle_startendtag(self, tag, attrs):
        self.stack.append(tag)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID and (not self.stack or self.stack[-1] != tag):
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> 与 <{self.stack[-1] if self.stack else '无'}> 不配对")
            return
        self.stack.pop()
        if tag == "a" and self._href is not None:
            self.anchors.append((self._href, "".join(self._text).strip()))
            self._href = None

    def handle_data(self, data):
        if "details" in self.stack and self.details:
            self.details[-1] += data
        if self._href is not None:
            self._text.append(data)


SITE_COMMAND = [sys.executable, "-m", "courseware.cli", "site"]


@pytest.fixture(scope="module")
def built(site_build):
    """用 ./poet site --out 生成的网站（命令行的那一条路；整个测试运行只生成一次，见 tests/conftest.py），
    各测试检查它的不同方面：(SimpleNamespace(out=网站文件夹, stdout=命令的输出……), 相对路径 → Page)。"""
    assert site_build.returncode == 0, site_build.stdout + site_build.stderr
    pages = {
        p.relative_to(site_build.out).as_posix(): Page(p.read_text(encoding="utf-8"))
        for p in site_build.out.rglob("*.html")
    }
    return site_build, pages


def test_one_page_per_existing_lesson(built):
    result, pages = built
    available = [l for l in CATALOGUE if l.available]
    assert len(available) >= 10  # 课程里至少已写好这些课
    assert f"已生成 {len(available)} 课的网页" in result.stdout
    lesson_pages = {name for name in pages if re.fullmatch(r"\d\d\.html", name)}
    assert lesson_pages == {f"{l.code}.html" for l in available}
    for lesson in available:
        for name in ("starter.py", "solution.py", "experiment.py"):
            copied = result.out / lesson.code / name
            assert copied.read_bytes() == (lesson.folder / name).read_bytes()


def test_html_parses_with_balanced_tags(built):
    _, pages = built
    for name, page in pages.items():
        assert page.errors == [], name
        assert page.stack == [], f"{name} 有没闭合的标签 {page.stack}"


def test_every_internal_link_resolves(built):
    result, pages = built
    checked = 0
    for name, page in pages.items():
        here = result.out / name
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme:
                continue
            target = (here.parent / unquote(parts.path)).resolve() if parts.path else here
            assert target.is_file(), f"{name}: {link}"
            assert result.out.resolve() in target.parents, f"{name}: {link} 指出了网站"
            if parts.fragment and target.suffix == ".html":
                assert parts.fragment in pages[target.relative_to(result.out).as_posix()].ids, f"{name}: {link}"
            checked += 1
    assert checked > 500


def test_lesson_09_page(built):
    result, pages = built
    html = (result.out / "09.html").read_text(encoding="utf-8")
    page = pages["09.html"]
    # 页头：中文的课号，与 ./poet 地图一样写“学习路径/03 · GPT 的内部”，回到课程地图的链接
    assert '<a href="index.html">课程地图</a> › 学习路径/03 · GPT 的内部' in html
    assert f"第 09 课 · 共 {len(CATALOGUE)} 课" in html and "LESSON" not in html
    index = (result.out / "index.html").read_text(encoding="utf-8")
    assert f"共 {len(CATALOGUE)} 课" in index and "课已写好" not in index  # 维护者的进度不给学习者看
    # 代码与文字图里的汉字各占 2ch 的格子（与终端一样宽）：列对得齐
    assert '<span class="cell2"><span>位</span></span>' in html
    assert '.cell2::before { content: "00"' in (result.out / "style.css").read_text(encoding="utf-8")
    assert f"<h1>{BY_NUMBER[9].title}</h1>" in html
    anchors = dict(page.anchors)
    assert anchors.get("09/starter.py") == "下载起始代码"
    assert anchors.get("09/solution.py") == "下载参考答案"
    # 折叠的答案：课文“小练习与答案”里的 <details>，以及从文件读进来的整份参考答案
    assert (
        html.count("<summary>查看答案</summary>")
        == (BY_NUMBER[9].folder / "README.md").read_text(encoding="utf-8").count("<summary>查看答案</summary>")
        >= 1
    )
    answers = [d for d in page.details if d.startswith("查看答案")]
    assert answers and all(len(a) > 20 for a in answers)
    solution = (BY_NUMBER[9].folder / "solution.py").read_text(encoding="utf-8")
    folded_solution = next(d for d in page.details if "参考答案" in d[:40])
    assert solution.strip() in folded_solution  # 代码从文件原样读入（上色只加标签，不改文字）
    # 上一课、下一课
    prev = next(h for h, t in page.anchors if t.startswith("上一课"))
    nxt = next(h for h, t in page.anchors if t.startswith("下一课"))
    assert prev == "08.html" and BY_NUMBER[8].title in dict(page.anchors)[prev]
    assert nxt == "10.html" and BY_NUMBER[10].title in dict(page.anchors)[nxt]
    # 构建时上色：pygments 的 span，不用 JavaScript
    assert '<span class="k">' in html or '<span class="kn">' in html
    assert "<script" not in html


def test_lesson_09_figure_uses_the_experiment_numbers():
    """图里的数与实验打印的数相同：对照第 09 课记下的输出里第一行的前 4 个数。"""
    stdout = recorded(9)
    printed = re.search(r"原序列位置 0 的前 4 个数：\[([^\]]+)\]", stdout)
    swapped = re.search(r"换序后位置 0 的前 4 个数：\[([^\]]+)\]", stdout)
    figure = lesson09()
    assert printed and swapped
    assert contains(figure.steps[2], f"[{printed.group(1)}]")
    assert contains(figure.steps[4], f"[{swapped.group(1)}]")
    assert "<svg" in figure.svg and figure.svg.count("<rect") > 30


def test_index_marks_lessons_not_yet_written(built):
    result, pages = built
    html = (result.out / "index.html").read_text(encoding="utf-8")
    missing = [l for l in CATALOGUE if not l.available]
    assert html.count("即将推出") == len(missing)
    for lesson in CATALOGUE:
        assert f'id="lesson-{lesson.code}"' in html and lesson.title in html
    assert sum(h == f"{l.code}.html" for h, _ in pages["index.html"].anchors for l in CATALOGUE if l.available) == sum(
        l.available for l in CATALOGUE
    )


def test_glossary_terms_are_linked_from_lessons(built):
    result, pages = built
    glossary, _ = site.read_glossary()
    anchor = glossary.anchors["位置表"]
    assert anchor in pages["glossary.html"].ids
    assert f"glossary.html#{anchor}" in pages["09.html"].links
    # 术语表那一行列出用到它的课
    row = re.search(rf'<tr id="{anchor}">(.*?)</tr>', (result.out / "glossary.html").read_text(encoding="utf-8"), re.S)
    assert row and 'href="09.html"' in row.group(1)


def test_broken_link_fails_the_build_naming_file_and_link(tmp_path, monkeypatch):
    lessons = tmp_path / "lessons"
    shutil.copytree(BY_NUMBER[9].folder, lessons / "09")
    shutil.copyfile(site.GLOSSARY_FILE, lessons / "GLOSSARY.md")
    readme = lessons / "09" / "README.md"
    text = readme.read_text(encoding="utf-8").replace("## 运行", "见 [不存在的文件](../../missing.md)。\n\n## 运行", 1)
    readme.write_text(text, encoding="utf-8")
    # 把课程文件夹指到临时目录：那里只有第 09 课，课文多了一个坏链接
    monkeypatch.setattr(type(BY_NUMBER[9]), "folder", property(lambda self: lessons / self.code))
    monkeypatch.setattr(site, "LESSONS_DIR", lessons)
    monkeypatch.setattr(site, "GLOSSARY_FILE", lessons / "GLOSSARY.md")
    out = tmp_path / "site"
    with pytest.raises(site.SiteError) as e:
        site.build(out)
    message = str(e.value)
    assert "09.html（来自" in message and "09/README.md" in message and "“../../missing.md”" in message
    assert "断开的链接" in message
    assert not out.exists()  # 失败时不留半成品
    assert list(tmp_path.iterdir()) == [lessons]  # 临时的构建文件夹也删掉了


def test_refuses_to_overwrite_a_foreign_folder(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("学习者自己的笔记", encoding="utf-8")
    with pytest.raises(site.SiteError, match="不是 ./poet site 生成的"):
        site.build(out)
    assert (out / "notes.txt").read_text(encoding="utf-8") == "学习者自己的笔记"


def test_lesson_10_figure_draws_the_head_the_experiment_picks():
    """第 10 课的热图与实验挑的是同一个头、同一句输入（权重出自同一个 probes.attention_weights）。"""
    printed = recorded(10)
    head = re.search(r"最看上一个字的头：头 (\d+)", printed)
    seen = re.search(r"训练好的模型看到的输入：(.+)", printed)
    figure = lesson10()
    assert head and seen
    assert f"头 {head.group(1)} 最大" in figure.steps[3]
    assert seen.group(1).strip().split()[:5] == figure.steps[0].split("条件区 ")[1].split("，")[0].split()
    assert figure.svg.count("<rect") > 40


def test_lesson_11_figure_counts_the_previous_position_like_lesson_10():
    """看上一个字的头，每行的“上一个字”各不相同：第 11 课的图按位置数，与第 10 课的图数出的行数相同。"""
    ten, eleven = lesson10(), lesson11()
    head = re.search(r"头 (\d+) 最大", ten.steps[3]).group(1)
    rows = re.search(r"(\d+) 行里有 (\d+) 行把最大的权重给了上一个位置", ten.steps[5])
    step = next(s for s in eleven.steps if s.startswith(f"头 {head}："))
    assert f"{rows.group(1)} 行里有" in step
    assert re.search(r"(\d+) 行(?:把最大的权重)?给了上一个位置", step).group(1) == rows.group(2)


def test_cli_site_builds_and_refuses_foreign_folders(built, tmp_path):
    result, _ = built  # 生成的那一半：built 就是用 ./poet site --out 生成的
    assert "已生成" in result.stdout and (result.out / "09.html").is_file()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("别删我", encoding="utf-8")
    bad = subprocess.run(
        SITE_COMMAND + ["--out", str(tmp_path / "notes")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert bad.returncode == 1
    assert "不会覆盖" in bad.stderr or "不覆盖" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert (tmp_path / "notes" / "a.txt").read_text(encoding="utf-8") == "别删我"


# ---------- 插图里的数与实验打印的数相同 ----------
# 网站的图是构建时现算的：带小数的数按 figures.contains（figures.agrees 那一条规则）比（最后一位随 CPU、线程数而变），整数一点不差
# 图对照 ./poet verify --record 记下的输出（lessons/NN/output.txt），不在测试里重跑实验：记录与实验现在印的相同
# 由 tests/lessons/test_all_lessons.py 逐课查（test_output_matches_the_recording），图 = 记录 = 实验


def recorded(number: int) -> str:
    """第 number 课实验记下的输出（去掉开头的 # 说明行）。实验把超过 80 列的一行折开、接下去的行缩进两格
    （labs.say）：这里接回一行，正则照整行找。折在分句处的不加空格，折在空格或“, ”处的补回那个空格。"""
    text = (BY_NUMBER[number].folder / "output.txt").read_text(encoding="utf-8")
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if lines and re.match(r"^  \S", line) and cell_len(lines[-1]) >= 40:  # 折开的一行：缩进正好两格
            lines[-1] += ("" if lines[-1][-1] in "，。；：、！？" else " ") + line[2:]
        else:
            lines.append(line)
    return "\n".join(lines)


def test_every_figure_is_an_svg_with_steps(built):
    result, pages = built
    for lesson in CATALOGUE:
        if not lesson.available or not chart_drawer(lesson):
            continue
        html = (result.out / f"{lesson.code}.html").read_text(encoding="utf-8")
        assert html.count('<figure class="fig">') >= 1 and "<svg" in html, lesson.number
        assert "用文字逐步读这张图" in html


def test_lesson_16_figure_marks_the_steps_of_the_experiment_table():
    printed = recorded(16)
    figure = lesson16()
    from poetry_gpt.train_config import PRESETS

    base = PRESETS["base"]
    middle = base.warmup + (base.steps - base.warmup) // 2
    for step in (base.warmup - 1, middle, base.steps):
        value = re.search(rf"│\s*{step} │\s*([0-9.e-]+) │", printed).group(1)
        assert f"第 {step} 步 {value}" in figure.svg, (step, value)
    assert f"第 {middle} 步走了一半，学习率 0.00165" in figure.steps[2]  # 峰值 0.003 与最低值 0.0003 的正中间


# 第 21、22 课的实验要跑一两分钟（tests/lessons/test_all_lessons.py 已经逐课跑过），
# 这里按实验的写法在测试里重算一遍要比的数


def test_lesson_21_figure_is_the_step_the_experiment_samples():
    """实验第 3 部分：温度 0.8 → top-k 40 → top-p 0.95 之后，诗里那个字的名次与概率。"""
    from poetry_gpt.checkpoint import load_model
    from poetry_gpt.data import BOS, SEP, default_tokenizer, form_of
    from poetry_gpt.generate import write_one
    from poetry_gpt.sampling import filter_logits

    tok = default_tokenizer()
    model, _ = load_model()
    poem = write_one(model, tok, "月", seed=26, constrained=False)
    prefix, answer = poem.text[:-2], poem.text[-2]
    ids = [BOS, form_of(line_length=poem.form).token] + tok.encode("月") + [SEP] + tok.encode(prefix)
    with torch.no_grad():
        logits = model(torch.tensor([ids]))[0][0, -1]
    scaled = logits / 0.8
    final = torch.softmax(filter_logits(scaled, top_k=40, top_p=0.95), -1)
    raw = torch.softmax(logits, -1)
    a = tok.stoi[answer]
    rank = int((final > final[a]).sum()) + 1
    figure = lesson21()
    assert f"前文“{prefix}”" in figure.steps[0]
    assert f"“{answer}”第 {rank} 名，概率 {final[a].item():.4f}（原始 {raw[a].item():.4f}）" in figure.steps[4]
    assert f"剩 {int(torch.isfinite(filter_logits(scaled, top_k=40, top_p=0.95)).sum())} 个" in figure.steps[3]


def test_lesson_22_figure_is_the_allowed_mass_the_experiment_records():
    """实验第 2 部分：逐步采样（KV 缓存、Constraint.apply、sample_next），采样之前记下允许的字占的概率。
    图是把写好的诗重新读一遍算的，两种算法的数要相同。"""
    from poetry_gpt.checkpoint import load_model
    from poetry_gpt.constraints import Constraint
    from poetry_gpt.data import BOS, EOS, FIVE, SEP, default_tokenizer
    from poetry_gpt.model import KVCache
    from poetry_gpt.sampling import SAMPLING, sample_next
    from poetry_gpt.settings import PLAIN

    tok = default_tokenizer()
    model, _ = load_model()
    model.eval()
    gen, cache, c = (
        torch.Generator().manual_seed(0),
        KVCache(model.config.n_layers),
        Constraint(tok, 5, "月", rules=PLAIN),
    )
    record, body = [], []
    with torch.no_grad():
        logits = model(torch.tensor([[BOS, FIVE] + tok.encode("月") + [SEP]]), kv_cache=cache)[0][0, -1]
        while True:
            record.append(torch.softmax(logits, -1)[c.allowed()].sum().item())
            token = sample_next(c.apply(logits), SAMPLING.temperature, SAMPLING.top_k, SAMPLING.top_p, gen)
            if token == EOS:
                break
            body.append(token)
            c.advance(token)
            logits = model(torch.tensor([[token]]), kv_cache=cache)[0][0, -1]
    figure = lesson22()
    assert figure.steps[0].endswith(tok.decode(body))
    assert f"平均 {sum(record) / len(record):.4f}，最小 {min(record):.4f}" in figure.steps[2]
    assert figure.steps[3].split("：")[1].split("——")[0] == "、".join(f"{record[i]:.4f}" for i in (5, 11, 17, 23))
    assert figure.svg.count("<rect") == 1 + len(record)


def test_lesson_23_figure_has_the_forced_probabilities_of_the_experiment():
    printed = recorded(23)
    figure = lesson23()
    rows = re.findall(r"│\s*(\d) │\s*(\S) │\s*([0-9.]+) │\s*(\d+) │\s*(\S) ([0-9.]+) │", printed)
    assert len(rows) == 4, printed
    for line, ch, p, rank, top, top_p in rows:
        assert contains(
            figure.steps[2 + int(line)], f"第 {line} 句“{ch}”：模型给它 {p}，排第 {rank}；它最想写“{top}”（{top_p}）"
        )


def test_lesson_24_figure_scores_shan_xing_like_the_experiment():
    printed = recorded(24)
    figure = lesson24()
    best = re.search(r"最合的格式：(\S+)（每字都论的得分 ([0-9.]+)）", printed)
    lenient = re.search(r"宽式（一三五不论）得分：([0-9.]+)", printed)
    assert f"最合的一种：{best.group(1)}" in figure.steps[1] and f"得分 {best.group(2)}" in figure.steps[1]
    assert f"得分 {lenient.group(1)}" in figure.steps[3]
    marks = re.findall(r"第 \d 句：\S+  \S+  要\S+  (\S+)", printed)[:4]  # 《山行》四句逐字的 ○ ×
    wrong = [(i + 1, j + 1) for i, m in enumerate(marks) for j, c in enumerate(m) if c == "×"]
    assert [tuple(map(int, w)) for w in re.findall(r"第 (\d) 句第 (\d) 字", figure.steps[2])] == wrong
    assert figure.svg.count('fill="#f1d2c7"') == len(wrong)


def test_lesson_12_figure_has_the_gelu_values_of_the_experiment_table():
    rows = re.findall(r"│\s*(-?[0-9.]+) │\s*(-?[0-9.]+) │\s*(-?[0-9.]+) │\s*(-?[0-9.]+) │\s*([0-9.]+) │", recorded(12))
    assert len(rows) == 9
    figure = lesson12()
    for x, _relu, gelu, _tanh, _phi in rows:
        assert contains(figure.steps[3], f"GELU({x}) = {gelu}"), (x, gelu)
    gap = re.search(r"精确与 tanh 近似在 \[-6, 6\] 上最多相差：([0-9.]+)", recorded(12)).group(1)
    assert contains(figure.steps[4], f"最多差 {float(gap):.6f}")  # 最大差在 x = -2.70，[-3, 3] 里
    assert figure.svg.count("<circle") == 10


def test_lesson_14_figure_has_the_parameter_table_of_the_experiment():
    text = recorded(14)
    rows = {
        name: (n, share)
        for name, n, share in re.findall(
            r"│\s*(characters|positions|attention|mlp|norms) │\s*(\d+) │[^│]*│\s*([0-9.]+%) │", text
        )
    }
    total = re.search(r"│\s*合计 │\s*(\d+) │", text).group(1)
    assert len(rows) == 5
    figure = lesson14()
    for name, (n, share) in rows.items():
        assert f">{n}（{share}）<" in figure.svg, name
    assert f"合计 {total}" in figure.steps[0]


def test_lesson_02_figure_has_the_ids_of_the_experiment():
    text = recorded(2)
    rows = re.findall(r"│ (\d) │\s*\[([0-9, ]+)\] │ (\S+) │", text)
    assert len(rows) == 4
    figure = lesson02()
    for b, ids, line in rows:
        cells = re.findall(r">(\d+)</text>", figure.svg.split(f">b={b}<")[1].split("← ids")[0])
        assert ", ".join(cells) == ids, b
    shapes = dict(re.findall(r"│\s*(characters\(ids\)|x\.mean\(-1, keepdim=True\)) │ (\[[0-9, ]+\]) │", text))
    assert f"[B, T, C] = {shapes['characters(ids)']}" in figure.steps[2]
    logits = re.search(r"logits 形状 \[B, T, V\]：(\[[0-9, ]+\])", text).group(1)
    flat = re.search(r"摊平成 \[B\*T, V\]：(\[[0-9, ]+\])", text).group(1)
    assert f">{logits}<" in figure.svg and f">{flat}<" in figure.svg
    assert (
        "ids[3, 4] 是 " + re.search(r"ids\[3, 4\]（一格，0 维张量）：(\d+ → \S+)，", text).group(1) in figure.steps[1]
    )


def test_lesson_03_figure_has_the_coverage_of_the_experiment():
    text = recorded(3)
    need = dict(re.findall(r"│\s*(\d+)% │\s*(\d+) │\s*[0-9.]+ │", text))
    assert set(need) == {"50", "90", "99"}
    figure = lesson03()
    for share, n in need.items():
        assert f">前 {n} 个字 → {share}%<" in figure.svg
    total = re.search(r"正文汉字总数：(\d+)", text).group(1)
    distinct = re.search(r"不同的字：(\d+)", text).group(1)
    assert f"正文汉字 {total} 个，不同的字 {distinct} 个" in figure.steps[0]
    forms = re.search(r"│\s*合计 │\s*(\d+) │\s*(\d+) │\s*(\d+) │", text).groups()
    assert f"共 {forms[2]} 首（五言绝句 {forms[0]}、七言绝句 {forms[1]}）" in figure.steps[0]
    first = re.search(r"│\s*1 │ (\S) │\s*(\d+) │", text).groups()
    assert f"第 1 名“{first[0]}”出现 {first[1]} 次" in figure.steps[1]


def test_lesson_25_figure_has_the_human_rows_of_the_experiment():
    """人写的诗：实验第 3 部分在同一批 val 诗上算的数，与记下的 ./poet eval 相同（图读的是后者）。"""
    text = recorded(25)
    figure = lesson25()
    names = {"押韵（两字不同）": "押韵", "平仄（宽式）": "平仄", "粘对全合": "粘对全合", "有字用≥3次": "3 次以上"}
    for label, where in names.items():
        five, seven = re.search(rf"│\s*{re.escape(label)} │[^│]*│[^│]*│\s*([0-9.]+) │\s*([0-9.]+) │", text).groups()
        step = next(s for s in figure.steps if where in s)
        assert f"人写 {five} / {seven}" in step, label
        assert f">{five}<" in figure.svg and f">{seven}<" in figure.svg
    assert figure.svg.count('fill="#8c2f1b"') == 8  # 每格两根人写的横条描红


def test_lesson_07_figure_has_the_counts_of_the_bigram_model():
    """图在正文里直接数“明”的下一个字（不跑 BigramModel.fit）；数与概率要和实验用 BigramModel 算的表相同。"""
    text = recorded(7)
    table = text.split("“明”的下一个字")[1].split("正文的第一个字")[0]
    rows = re.findall(r"│\s*(\S) │\s*(\d+) │\s*([0-9.]+) │", table)
    assert len(rows) == 6
    figure = lesson07()
    for ch, count, p in rows:
        assert re.search(rf">{re.escape(ch)}</text>.*?>{p}</text>", figure.svg), (ch, p)
        assert f">c = {count}<" in figure.svg
    total = re.search(r"“明”后面一共跟过几次：(\d+)", text).group(1)
    smoothed = re.search(r"平滑后 P\(鲸 \| 明\) = [^：]+：([0-9.]+)", text).group(1)
    assert f"当过 {total} 次前一个字" in figure.steps[0]
    assert f"平滑后仍有 {smoothed}" in figure.steps[3]


def test_lesson_05_figure_has_the_vocabulary_rows_of_the_experiment():
    text = recorded(5)
    rows = re.findall(r"│\s*(\d+) │\s*(\S+) │\s*(\d+) │", text.split("汉字表的前 13 行")[1].split("最后一个编号")[0])
    assert len(rows) == 13
    figure = lesson05()
    for i, token, count in rows:
        after = figure.svg.split(f'text-anchor="end" fill="#6b6155" font-weight="normal">{i}</text>', 1)[1]
        shown = count if int(count) else "特殊标记：0"
        assert re.match(rf".*?>{re.escape(escape(token))}</text>.*?>{shown}</text>", after), i
    last = re.search(r"最后一个编号上的字：(\d+) → (\S)（出现 (\d+) 次）", text).groups()
    assert f"最后一个编号 {last[0]} 是“{last[1]}”，只出现 {last[2]} 次" in figure.steps[2]
    ids = re.search(r"编号（前 12 个）：\[([0-9, ]+)\]", text).group(1).split(", ")[:6]
    assert f"[{', '.join(ids)}]" in figure.steps[3]


def test_lesson_06_figure_has_the_layout_and_mask_of_the_experiment():
    text = recorded(6)
    rows = re.findall(r"│\s*(\d+) │\s*(\S+) │\s*(\S+) │\s*(是|—) │", text)
    figure = lesson06()
    assert len(rows) == int(re.search(r"样本长度 / 输入长度 T：\[\d+, (\d+)\]", text).group(1))
    cells = re.findall(r"<text [^>]*>([^<]+)</text>", figure.svg.split("位置</text>", 1)[1])
    assert sum(scored == "是" for *_, scored in rows) == figure.svg.count('stroke="#8c2f1b"')
    for t, given, target, scored in rows:
        i = cells.index(t)  # 位置号，后面是输入、箭头、目标
        assert cells[i + 1 : i + 4] == [escape(given), "↓", escape(target)], t
    assert f"共 {sum(s == '是' for *_, s in rows)} 格（红框）" in figure.steps[3]


def test_lesson_15_figure_has_the_position_the_experiment_scores():
    text = recorded(15)
    rows = re.findall(r"│\s*(\d) │ (\S) │\s*([0-9.]+) │\s*([0-9.]+) │\s*([0-9.]+) │", text)
    assert len(rows) == 5
    figure = lesson15()
    for _rank, ch, _logit, p, nll in rows:
        shown = re.search(rf">{ch}</text>.*?>([0-9.]+)</text>", figure.svg)
        assert shown and agrees(p, shown.group(1)) and contains(figure.svg, f">−ln p = {nll}<"), ch
    rank, _, prob = re.search(r"正确答案的名次、分数与概率：第 (\d+) 名，([0-9.]+)，([0-9.]+)", text).groups()
    assert contains(figure.steps[2], f"排第 {rank} 名，p = {prob}")
    loss = re.search(r"这个位置的交叉熵 −ln p（奈特）：([0-9.]+)", text).group(1)
    assert contains(figure.steps[3], f"−ln p = {loss} 奈特")
    seen = re.search(r"位置 (\d+) 读到：(\S+)", text).groups()
    assert f"到位置 {seen[0]}（{seen[1]}）为止" in figure.steps[0]


def test_lesson_26_figure_has_the_budget_table_of_the_experiment():
    text = recorded(26).split("同样 100 万的预算")[0]
    rows = re.findall(r"│\s*([0-9,]+) │\s*(\d+) │\s*([0-9,]+) │\s*(\d+%) │\s*([0-9.]+%) │\s*(\d+%) │", text)
    assert len(rows) == 6
    figure = lesson26()
    svg = figure.svg
    for budget, width, _total, table_share, _positions, blocks in rows:
        svg = svg.split(f">{budget}</text>", 1)[1]  # 按表的顺序往下找
        assert re.match(rf".*?>C = {width}<.*?>{table_share}<.*?>{blocks}<", svg), budget
    assert f"C = {rows[0][1]}，字向量表占 {rows[0][3]}" in figure.steps[1]
    assert f"C = {rows[-1][1]}，Block 占 {rows[-1][5]}" in figure.steps[2]


def test_lesson_08_figure_has_the_rows_the_experiment_looks_up():
    text = recorded(8)
    figure = lesson08()
    ids = re.search(r"春 风 月 的编号：(\[[0-9, ]+\])", text).group(1)
    first = re.search(r"“春”的前 4 个数：(\[[0-9., -]+\])", text).group(1)
    work = re.findall(r"│\s*(?:one-hot 乘整张表|直接查表) │\s*(\d+) │\s*(\d+) │", text)
    assert f"编号是 {ids}" in figure.steps[0]
    assert f"表的第 18 行，前 4 个数 {first}；与直接查表 characters(ids) 相同：是" in figure.steps[2]
    assert f"= {work[0][0]} 次乘加" in figure.steps[3] and f"= {work[1][1]} 个数" in figure.steps[3]
    assert figure.svg.count('height="16" fill="#8c2f1b"') == 3  # 每行一个 1


def test_lesson_13_figure_has_the_residual_stream_of_the_experiment():
    text = recorded(13)
    ratios = re.search(r"注意力、MLP 各自加上的修改 / 残差流的大小：\[([0-9.]+), ([0-9.]+)\]", text).groups()
    stds = re.search(r"│ 残差 \+ LN │" + r"\s*([0-9.]+) │" * 5, text).groups()
    figure = lesson13()
    assert contains(figure.svg, f"attention {ratios[0]}，mlp {ratios[1]}")
    shown = re.search(r"标准差一层层慢慢变大：(.+?)。", figure.steps[3]).group(1).split(" → ")
    assert len(shown) == len(stds)
    assert all(agrees(f"{float(b):.3g}", f"{float(a):.3g}") for a, b in zip(shown, stds))  # 实验表用 3 位有效数字


def test_lesson_20_figure_counts_the_positions_of_the_experiment():
    text = recorded(20)
    poem = re.search(r"写出的诗：(\S+)", text).group(1)
    full = re.search(r"整段重算：送进模型的位置数合计：(\d+)", text).group(1)
    cached = re.search(r"KV 缓存：送进模型的位置数合计：(\d+)", text).group(1)
    figure = lesson20()
    assert f"写出“{poem}”" in figure.steps[0]
    assert f"整段重算合计 {full} 个位置，KV 缓存合计 {cached} 个" in figure.svg
    assert figure.svg.count('fill="#8c2f1b"') == int(cached)


def test_lesson_04_figure_drops_the_records_the_experiment_drops():
    """每个原因剔除几条、哪几条，收入几条，与实验的逐条检查表相同。"""
    import ast

    printed = recorded(4)
    reasons = ast.literal_eval(re.search(r"各原因条数：(\{.*\})", printed).group(1))
    kept = re.search(r"收入几条：(\d+)", printed).group(1)
    rows = re.findall(r"│\s*(.+?) │ [^│]+ │\s*(\S+) │", printed.split("clean_record 逐条检查")[1].split("收入几条")[0])
    assert len(rows) == int(re.search(r"原始记录（条）：(\d+)", printed).group(1))
    figure = lesson04()
    notes = re.findall(r">([^<>−]+) −(\d+)：[^<]+</text>", figure.svg)
    assert {reason: int(n) for reason, n in notes} == reasons
    for title, result in rows:
        if not result.startswith("收入"):
            assert title.strip()[:8] in re.search(rf">{re.escape(result)} −\d+：([^<]+)<", figure.svg).group(1), title
    assert f">收入 {kept} 条<" in figure.svg and f"最后收入 {kept} 条" in figure.steps[-1]
    assert figure.svg.count('stroke="#8c2f1b" stroke-width="1.5"') == sum(reasons.values())  # 一条记录只被剔除一次


def test_lesson_01_figure_follows_the_pipeline_of_the_experiment():
    """第 01 课的实验读发布的模型，图不读：比的是与模型训练无关的数（编号、V、前文长度的取法、层数）。"""
    from poetry_gpt.data import load_poems

    text = recorded(1)
    figure = lesson01()
    ids = re.search(r"前 8 个编号：\[([0-9, ]+)\]", text).group(1).split(", ")
    tokens = re.search(r"对应的标记：\[([^\]]+)\]", text).group(1).split(", ")
    seen = re.search(r"前 8 个是 (.+?) → \[([0-9, ]+)\]", figure.steps[1]).groups()
    shown = dict(zip(seen[0].split(" "), seen[1].split(", ")))
    common = [t for t in tokens if t in shown]
    assert len(common) >= 4 and all(shown[t] == i for t, i in zip(tokens, ids) if t in shown)  # <bos> 月 <sep> …
    V = re.search(r"汉字表 V = (\d+)", text).group(1)
    prefix = re.search(r"1\. 文本：前文（正文部分）：(\S+)", text).group(1)
    assert re.search(r"\[B, T\]：\[1, (\d+)\]", text).group(1) == str(4 + len(prefix))  # 条件区 4 个标记
    poem = next(p for p in load_poems() if p["title"] == "枫桥夜泊" and p["author"] == "张继")
    T = 4 + len(poem["text"]) - 2
    assert f">[1, {T}]<" in figure.svg and re.search(rf">\[1, {T}, {V}\]<", figure.svg)
    assert f">[{V}]<" in figure.svg and f"V = {V} 个分数" in figure.steps[3]
    layers = len(re.findall(r"4\. 第 \d+ 层 Block 之后", text))
    assert f"穿过 {layers} 层 Block" in figure.steps[2]
    assert "加起来等于 1.0000" in figure.svg


def test_lesson_17_figure_has_the_step_of_the_experiment():
    text = recorded(17)
    figure = lesson17()
    loss = re.search(r"这一步的损失（奈特/字）：([0-9.]+)", text).group(1)
    first = re.search(r"第 0 步的前 8 首（样本编号）：\[([0-9, ]+)\]", text).group(1)
    shape = re.search(r"x、y、mask 的形状 \[B, T\]：(\[[0-9, ]+\])", text).group(1)
    assert contains(figure.svg, f"损失 {loss} 奈特/字") and f"样本 {first} ……" in figure.steps[0]
    assert f"形状 {shape}" in figure.steps[0]
    top = re.findall(r"│\s*([a-z0-9_.]+) │\s*([0-9.]+) │", text.split("梯度范数最大的 4 个")[1].split("总范数")[0])
    assert len(top) == 4
    svg = figure.svg
    for name, norm in top:  # 横条按范数从大到小，与实验的表同序
        svg = svg.split(f">{name}</text>", 1)[1]
        shown = re.match(r".*?>([0-9.]+)</text>", svg)
        assert shown and agrees(norm, shown.group(1)), name
    total = re.search(r"总范数 √\(Σ 各参数范数²\)：([0-9.]+)", text).group(1)
    summed = re.search(r"各参数范数之和（不是总范数）：([0-9.]+)", text).group(1)
    assert contains(figure.svg, f"总范数 {total} ≤ 1.0") and contains(figure.steps[4], f"直接相加是 {summed}")
    clipped = {k: v.strip() for k, v in re.findall(r"│\s*(\S+) │\s*([^│]+) │", text.split("第一次被裁剪的一步")[1])}
    assert agrees(clipped["裁剪前的总范数"], re.search(r"总范数却是 ([0-9.]+)", figure.steps[5]).group(1))
    assert contains(
        figure.steps[5], f"最大的三个参数范数 {'、'.join(clipped['最大的三个单个参数范数'][1:-1].split(', '))}"
    )
    assert contains(figure.svg, f"全部 × {clipped['每个梯度乘的数（最小）']} → {clipped['裁剪后的总范数']}")
    assert clipped["每个梯度乘的数（最小）"] == clipped["每个梯度乘的数（最大）"]
    step0 = re.search(r"第 0、20、40、79 步的损失：\[([0-9.]+),", text).group(1)
    assert contains(figure.steps[5], f"第 0 步（损失 {step0}）")


def test_lesson_19_figure_marks_where_validation_was_lowest():
    """本课的要点在图上：验证损失最低的一次（哪一步、多少）标成红点，文字说出它与最后一次验证，都与实验的记录相同。"""
    text = recorded(19)
    figure = lesson19()
    step = re.search(r"验证损失最低的一步（共 \d+ 步）：\[(\d+), [0-9.]+\]", text).group(1)
    lowest = re.search(rf"│\s*{step} │\s*([0-9.]+) │", text).group(1)  # 日志的验证损失表（三位小数）
    last = re.search(r"第 \d+ 步的验证损失：\[[0-9.]+, ([0-9.]+)\]", text).group(1)
    assert contains(figure.svg, f">验证最低 {lowest}（第 {step} 步）<"), figure.svg[-600:]
    assert contains(figure.steps[2], f"第 {step} 步，{lowest}。") and contains(figure.steps[2], f"最后一次是 {last}")
    assert figure.svg.count("<circle") == 1 and "开始过拟合的一步" in figure.steps[2]


def test_lesson_18_figure_has_the_runs_of_the_experiment():
    text = recorded(18)
    figure = lesson18()
    assert "16 步的损失全都相同：True" in text and "逐位相同" in figure.steps[1]
    val = re.search(r"第 16 步的验证损失：不中断 / 续训：\[([0-9.]+), ([0-9.]+)\]", text).groups()
    assert contains(figure.steps[1], f"都是 {val[0]} / {val[1]}")
    rows = {
        name: values
        for name, *values in re.findall(
            r"│\s*(\S+) │\s*([0-9.]+) │\s*([0-9.]+) │\s*([0-9.]+) │\s*([0-9.]+) │", text.split("哪一样都不能少")[1]
        )
    }
    labels = {
        "全部放回": "续训",
        "不放回优化器状态": "不放回优化器",
        "不放回随机数状态": "不放回随机数",
        "对照：不中断": "不中断",
    }
    assert set(rows) == set(labels)
    for name, label in labels.items():
        assert contains(figure.svg, f">{label} {rows[name][2]}<"), name  # 第 16 步的损失
    assert contains(
        figure.steps[3], f"第 10 步起就岔开（{rows['不放回优化器状态'][1]}，不中断是 {rows['对照：不中断'][1]}）"
    )
    assert contains(figure.steps[4], f"第 9 步已是 {rows['不放回随机数状态'][0]}（不中断 {rows['对照：不中断'][0]}）")
    params = re.search(r"共 ([0-9,]+) 个参数", text).group(1)
    weight_bytes = int(re.search(r"权重占的字节（fp32）：(\d+)", text).group(1))
    opt_bytes = int(re.search(r"优化器状态占的字节（两份动量）：(\d+)", text).group(1))
    rng = re.search(r"│\s*(\d+) 字节 │\s*torch.uint8", text).group(1)
    ints = re.search(r"│\s*(\d+) 个整数 │", text).group(1)
    vocab_hash = re.search(r"│\s*vocab_hash │\s*([0-9a-f]{16}) │", text).group(1)
    assert f"{params} 个参数" in figure.svg and f">{weight_bytes:,} 字节<" in figure.svg
    assert f">{opt_bytes:,} 字节<" in figure.svg and f"torch 发生器 {rng} 字节 + Python {ints} 个整数" in figure.svg
    assert f">{vocab_hash}<" in figure.svg
