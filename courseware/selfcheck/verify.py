"""维护者的总检查：./poet verify。

对课表里每一个有文件夹的课：五个文件都在；课文的 ## 小节齐全且顺序对；实验在时间上限内正常
结束，输出与记录下来的 lessons/NN/output.txt 相同（record.py）；课文里的数都在记录里（figures.py），
Python 代码块是课程代码的原文或标明了简化（excerpts.py）；solution.py 通过 check_file；starter.py 得到
“未完成”。另外，lessons/ 下不能有课表之外的文件夹。各课的实验与两次检查一起放进线程池并行跑（工作都在子进程里）。

通过的课按“文件指纹”记在 runs/verify-cache.json：课程文件夹、它用到的课程模块（poetry_gpt、courseware）与 data/
都没变时，下次直接记为通过（表里标“未变”，参考答案那次检查的 CPU 秒数也沿用记下的），改了一两课后重跑只要几秒；
--fresh 忽略缓存全部重跑。
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import json
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from poetry_gpt.common import DEFAULT_DATA, ROOT, atomic_write_text

from .. import catalogue
from ..catalogue import BY_NUMBER, CATALOGUE, LESSON_FILES, README_SECTIONS, Lesson
from ..defaults import EXPERIMENT_THREADS
from .imports import module_file, modules, package_imports

CACHE_FILE = ROOT / "runs" / "verify-cache.json"
CHECKS = ("files", "readme", "experiment", "output", "figures", "solution", "starter")
CHECK_TITLES = {
    "files": "五个文件",
    "readme": "课文小节",
    "experiment": "实验",
    "output": "输出与记录",
    "figures": "课文的数与代码",
    "solution": "参考答案",
    "starter": "起始代码",
}
THREADS = EXPERIMENT_THREADS
"""实验（连同记录）总用一个计算线程，--jobs 1 时也是：换了线程数，第 07、15、17 课印出的数或图就差在最后一位、
一个点上（见 record.py），输出就不能与记录一字一字地比了。"""
CACHED = ("readme", "experiment", "output", "solution", "starter")
"""文件没变时沿用上次结果的几项；“课文的数与代码”每次都查（不跑任何东西，几十毫秒）。"""


@dataclass
class LessonReport:
    """一课的检查结果：检查名 → 失败原因（通过时为 None）。cpu_seconds 是参考答案那次检查用掉的 CPU 秒数
    （Verdict.cpu_seconds：时间上限算的那个数）；沿用缓存时是上次通过时的，没检查或本机记不了时为 None。"""

    lesson: Lesson
    problems: dict[str, str | None] = field(default_factory=dict)
    seconds: float = 0.0  # 实验与两次检查各自用时之和
    cached: bool = False
    cpu_seconds: float | None = None

    @property
    def ok(self) -> bool:
        return all(v is None for v in self.problems.values())


def readme_problem(lesson: Lesson) -> str | None:
    """课文第一行是“# 第 NN 课 · 标题”，## 小节按 README_SECTIONS 的顺序出现（可有别的小节），
    末尾链向上一课、下一课的两行与课表（lessons/manifest.toml）的课号、标题一致。"""
    text = (lesson.folder / "README.md").read_text(encoding="utf-8")
    title = f"# 第 {lesson.code} 课 · {lesson.title}"
    if not text.startswith(title):
        return f"第一行应为“{title}”"
    headings, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif line.startswith("## ") and not fenced:
            headings.append(line[3:].split("：")[0].strip())
    found = [h for h in headings if h in README_SECTIONS]
    if found != list(README_SECTIONS):
        missing = [s for s in README_SECTIONS if s not in found]
        return f"缺少小节：{'、'.join(missing)}" if missing else f"小节顺序不对：{' / '.join(found)}"
    for word, number in (("上一课", lesson.number - 1), ("下一课", lesson.number + 1)):
        other = BY_NUMBER.get(number)
        if other is not None:  # 前后课的链接与课表一致（标题改了，这里就会提醒）
            link = f"- {word}：[第 {other.code} 课 · {other.title}](../{other.code}/README.md)"
            if link not in text.splitlines():
                return f"“上一课 · 下一课”里应有这一行：{link}"
    return None


def experiment_problem(
    lesson: Lesson, timeout: float, threads: int | None = None, record: bool = False
) -> tuple[str | None, str | None]:
    """在仓库根目录运行 experiment.py（环境见 record.RUN_ENV），返回 (实验的问题, 输出与记录的差别)：
    超时或退出码非零时前者是原因（带输出的最后几行）；正常结束时后者比较输出与 lessons/NN/output.txt
    （record 为真时改为重写这个文件，后者为 None）。

    threads：给了就以环境变量 OMP_NUM_THREADS 传给实验（labs.setup_experiment 听它的）。几个实验同时跑时设为 1：
    每个实验本来要两个计算线程，两个进程的线程挤在两个核上空转等待，一起跑并不比一个一个跑快。
    """
    from .record import output_problem, run_experiment, write_output

    try:
        run = run_experiment(lesson, timeout, threads)
    except subprocess.TimeoutExpired:
        return f"超过 {timeout:g} 秒没有结束", "实验没有跑完"
    if run.returncode != 0:
        tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-5:])
        return f"退出码 {run.returncode}：\n{tail}", "实验没有跑完"
    if record:
        write_output(lesson, run.stdout, threads)
        return None, None
    return None, output_problem(lesson, run.stdout)


def figures_problem(lesson: Lesson) -> str | None:
    """课文里的数都在记录下来的输出里（figures.py），Python 代码块是原文或标明了简化（excerpts.py）。"""
    from .excerpts import check_excerpts
    from .figures import FiguresError, check_text

    path = (
        str((lesson.folder / "README.md").relative_to(ROOT))
        if lesson.folder.is_relative_to(ROOT)
        else str(lesson.folder / "README.md")
    )
    try:
        problems = [str(s) for s in check_text(path).stale] + list(check_excerpts(path).problems)
    except FiguresError as e:
        problems = [str(e)]
    return "\n".join(problems) or None


def solution_problem(lesson: Lesson, limits) -> tuple[str | None, float | None]:
    """(参考答案的问题（通过全部检查时为 None）, 这次检查用掉的 CPU 秒数（Verdict.cpu_seconds）)。"""
    from ..grading import check_file  # 导入 torch 要一两秒：全部沿用缓存时不导入

    v = check_file(lesson, lesson.folder / "solution.py", limits)
    return None if v.passed else f"{v.label}：{v.message}", v.cpu_seconds


def starter_problem(lesson: Lesson, limits) -> str | None:
    from ..grading import check_file

    v = check_file(lesson, lesson.folder / "starter.py", limits)
    return None if v.kind == "not_implemented" else f"应为“未完成”，实际是{v.label}：{v.message}"


CHECK_SETTINGS = ("FORBIDDEN", "FORBIDDEN_NAMES", "RAISES", "FRESH_RESULT", "TRIPWIRES", "KINDS")
"""check.py 里批改程序认得的大写名字（各自的意思见 courseware.grading 的说明）。"""
_UPPER = re.compile(r"[A-Z][A-Z0-9_]*")


def settings_problem(lesson: Lesson) -> str | None:
    """check.py 在顶层赋值的大写名字都是批改程序认得的（CHECK_SETTINGS）：拼错的 FORBIDEN 不会报错，
    只会让本课的源码规则悄悄失效。import 进来的名字不算；课内自用的常量以 _ 开头。
    都认得（或 check.py 读不了、有语法错误：参考答案一项会说明）时为 None，否则是原因（带行号）。"""
    path = lesson.folder / "check.py"
    try:
        body = ast.parse(path.read_bytes(), str(path)).body
    except (SyntaxError, ValueError, OSError):
        return None
    unknown = [
        (node.lineno, name.id)
        for node in body
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        for name in ast.walk(target)
        if isinstance(name, ast.Name) and _UPPER.fullmatch(name.id) and name.id not in CHECK_SETTINGS
    ]
    if not unknown:
        return None
    return (
        "；".join(f"check.py 第 {line} 行的 {name} 不是批改程序认得的名字" for line, name in unknown)
        + f"（认得的只有 {'、'.join(CHECK_SETTINGS)}；课内自用的常量请以 _ 开头）"
    )


def stray_folders() -> list[str]:
    """lessons/ 下不在课表里的文件夹名。"""
    codes = {lesson.code for lesson in CATALOGUE}
    return sorted(
        p.name
        for p in catalogue.LESSONS_DIR.iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and p.name not in codes
    )


GRADING = "courseware.grading"
"""批改程序包：它的每一个模块（check_file 用到的、复制进子进程的 runner.py、批改全班与报告）都算进每一课的指纹。"""


def used_modules(files: list[Path]) -> set[str]:
    """files 里的 .py 文件连同批改程序（GRADING 包的每个模块）直接或间接导入的课程模块（全名）。"""
    todo = {n for n in modules() if n == GRADING or n.startswith(f"{GRADING}.")}
    for f in files:
        if f.suffix == ".py":
            todo |= package_imports(f)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        seen.add(name)
        todo |= package_imports(module_file(name)) - seen
    return seen


def fingerprint(lesson: Lesson) -> str:
    """这一课检查结果所依赖的一切的摘要：课的文件夹里的文件（学习者的练习除外）、课程文件（连同批改程序）
    直接或间接导入的课程模块的源码、results/ 里的记录（第 19 课的实验读 results/eval.json）、
    data/ 里的文件（名字、大小、修改时间）、Python 与 torch 的版本。

    只算真正用到的模块：改 cli.py 或别的课没用到的模块，不会让这一课重跑。
    新克隆的仓库里 data/ 的修改时间都是新的，所以 CI 每次都全部重跑。
    """
    files = [lesson.folder / f for f in LESSON_FILES]
    h = hashlib.sha256(f"{sys.version}\0torch {importlib.metadata.version('torch')}".encode())
    modules = [module_file(n) for n in sorted(used_modules(files))]
    own = sorted(  # output.txt、figures.toml、第 04 课的 bad_records.json……
        p
        for p in lesson.folder.iterdir()
        if p.is_file() and not p.name.startswith(catalogue.EXERCISE.removesuffix(".py"))
    )
    records = sorted(p for p in (ROOT / "results").iterdir() if p.is_file())
    for path in [*own, catalogue.MANIFEST, *modules, *records]:  # 课表：标题与前后课链接
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    for path in sorted(DEFAULT_DATA.iterdir()):
        st = path.stat()
        h.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _load_cache(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _quick_checks(lesson: Lesson, cache: dict, record: bool) -> tuple[LessonReport, str | None, bool]:
    """一课不跑子进程的几项：五个文件与 check.py 的名字、课文的数与代码、课文小节；文件没变时沿用缓存里的其余几项。

    Returns:
        (报告, 文件指纹（算不了时为 None）, 还要不要跑实验与两次检查)。
    """
    report = LessonReport(lesson)
    missing = [f for f in LESSON_FILES if not (lesson.folder / f).is_file()]
    report.problems["files"] = f"缺少 {'、'.join(missing)}" if missing else settings_problem(lesson)
    if missing:
        return report, None, False
    try:
        key = fingerprint(lesson)
    except (SyntaxError, ValueError, OSError):  # 文件坏了：不用缓存，后面的检查会说明
        key = None
    if not record:
        report.problems["figures"] = figures_problem(lesson)
    entry = cache.get(lesson.code)
    if key and isinstance(entry, dict) and entry.get("key") == key and not record:
        report.problems.update(dict.fromkeys(CACHED))
        report.cached = True
        cpu = entry.get("cpu_seconds")
        report.cpu_seconds = cpu if isinstance(cpu, (int, float)) else None
        return report, key, False
    try:
        report.problems["readme"] = readme_problem(lesson)
    except (OSError, UnicodeDecodeError) as e:
        report.problems["readme"] = f"读不出 README.md：{e}"
    return report, key, True


def verify(
    jobs: int, timeout: float, cache_path: Path | None = CACHE_FILE, codes: set[str] | None = None, record: bool = False
) -> tuple[list[LessonReport], list[str]]:
    """检查每一个有文件夹的课（给了 codes 就只查这几课，如 {"05", "09"}）。cache_path 为 None 时不读也不写缓存。
    jobs > 1 时实验与检查都只用一个计算线程（见 :func:`experiment_problem`）。record 为真时不用缓存，
    实验的输出写进 lessons/NN/output.txt（“输出与记录”一项记为通过），不查参考答案与起始代码；“课文的数
    与代码”一项留给调用的人在全部记录写完之后再查（见 :func:`record_all`）。

    Returns:
        (各课的报告, 课表之外的文件夹名)。
    """
    from ..grading import Limits

    limits = Limits(timeout=timeout, threads=1 if jobs > 1 else 2)
    cache = _load_cache(cache_path) if cache_path else {}
    lock = threading.Lock()
    reports: list[LessonReport] = []
    pending = []  # (报告, 指纹)
    for lesson in CATALOGUE:
        if not lesson.folder.is_dir() or (codes is not None and lesson.code not in codes):
            continue
        report, key, todo = _quick_checks(lesson, cache, record)
        reports.append(report)
        if todo:
            pending.append((report, key))

    def run(report: LessonReport, key: str, name: str, work):
        began = time.monotonic()
        try:
            problem = work()
        except Exception as e:  # 课程文件本身坏了（读不出、check.py 出错）：记为这一项不通过
            problem = f"检查时出错：{type(e).__name__}: {e}"
        if name == "solution" and isinstance(problem, tuple):
            problem, report.cpu_seconds = problem
        found = (
            dict(zip(("experiment", "output"), problem))
            if name == "experiment" and isinstance(problem, tuple)
            else {name: problem}
            if name != "experiment"
            else {"experiment": problem, "output": problem}
        )
        with lock:
            report.problems.update(found)
            report.seconds += time.monotonic() - began
            if cache_path and key and not record and len(report.problems) == len(CHECKS) and report.ok:
                # 每通过一课就记下：被外面的 timeout 打断也不白跑
                cache[report.lesson.code] = {"key": key, "cpu_seconds": report.cpu_seconds}
                atomic_write_text(cache_path, json.dumps(cache, indent=1, sort_keys=True) + "\n")

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for report, key in pending:  # 实验通常最慢，先排
            lesson = report.lesson
            pool.submit(
                run, report, key, "experiment", lambda l=lesson: experiment_problem(l, timeout, THREADS, record)
            )
            if not record:  # 重新记录只关心实验的输出，参考答案与起始代码留给平常的 ./poet verify
                pool.submit(run, report, key, "solution", lambda l=lesson: solution_problem(l, limits))
                pool.submit(run, report, key, "starter", lambda l=lesson: starter_problem(l, limits))
    return reports, stray_folders()


def record_all(jobs: int, timeout: float, with_eval: bool = True):
    """./poet verify --record：重新运行每一课的实验并重写 lessons/NN/output.txt，重写训练日志的记录，
    （with_eval 时）重新运行 ./poet eval 三遍（record.EVAL_FILES）并重写 results/eval*.json，最后对照全部课文。

    Returns:
        (各课的 verify 报告, 课表之外的文件夹, 过期的数与代码块：[(Stale 或 “path:line：原因”, 候选的新值或 None)])。
    """
    from .excerpts import check_excerpts
    from .figures import Source, candidate, check_text, config_for, parse_number, text_files
    from .record import EVAL_FILES, MODEL_LOG, RECORD_TIMEOUT, RECORDS, _same_eval, eval_text, model_log_text

    texts = text_files()
    old = {path: Source.read(path) for text in texts for path in config_for(text).sources}  # 重写之前的记录
    # ./poet eval 的记录先写：有的实验读它（第 19 课把 results/eval.json 与日志并排），要读到这一个模型的
    atomic_write_text(MODEL_LOG, model_log_text())
    if with_eval:
        for name, flags in EVAL_FILES.items():
            text = eval_text(flags, timeout=max(timeout, 1800))
            if not _same_eval(RECORDS / name, text):
                atomic_write_text(RECORDS / name, text)
    reports, strays = verify(jobs, max(timeout, RECORD_TIMEOUT), cache_path=None, record=True)
    stale = []
    for text in texts:
        config = config_for(text)
        new = [Source.read(path) for path in config.sources]
        for item in check_text(text, new).stale:
            guess = None
            if item.figure:
                figure = parse_number(item.figure)
                guess = next(
                    (
                        c
                        for source in config.sources
                        if (
                            c := candidate(
                                figure, old.get(source) or Source(source), next(s for s in new if s.path == source)
                            )
                        )
                    ),
                    None,
                )
            stale.append((item, guess))
        stale += [(problem, None) for problem in check_excerpts(text).problems]
    return reports, strays, stale
