"""测试共用的夹具：在临时工作区里运行 poet 命令，不碰学习者真实的练习与进度；
要沙箱（bubblewrap）或浏览器（Chromium）的测试在本机没有它们时跳过，最后说一行怎样让它们也跑。"""

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from poetry_gpt.common import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM = next((Path(p) for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if Path(p).exists()), None)
EVERYTHING = "POET_TEST_EVERYTHING"
"""设为 1 时（.ci/run）缺了沙箱或浏览器就是错误、一个测试也不跑，不会悄悄跳过。"""
NEEDS = {
    "sandbox": "要能用的 bubblewrap 沙箱（批改学习者代码的那一条路）",
    "browser": "要无界面的 Chromium 与 chromedriver（网站在浏览器里的样子）",
}
SKIPPED = "本机不能跑："
"""这两种测试跳过时原因的开头：最后的一行说明据此数出跳过了几个。"""
INSTALL = "sudo apt-get install bubblewrap chromium chromium-driver fonts-wqy-microhei fonts-dejavu-core"


if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest -n auto（pyproject.toml）：两核的机器上两个 worker 各占一核，各用一个计算线程（连同它们启动的子进程）；
    # 否则两边的线程挤在两个核上互相空等，一起跑并不比一个一个跑快。比核数多开一个 worker 试过（2026-12-07，两核）：
    # 三个 worker 13 分 20 秒，两个 worker 11 分 55 秒（那次还多跑了几处后来省掉的），CPU 时间多了近四分钟
    # 把最慢的几个文件排到最前面先发（--no-loadscope-reorder）也试过：11 分 14 秒；照测试个数排（现在这样）同一份代码
    # 量过 10 分 29 秒与 12 分 59 秒（CPU 时间差三成，这台机器本身时快时慢），看不出排序有用，就不加这层
    import torch

    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)


@pytest.fixture
def workspace(tmp_path):
    """一个空的学习者工作区（POET_WORKSPACE）。"""
    return tmp_path


@pytest.fixture
def poet(workspace):
    """poet(*args) → CompletedProcess。输出被管道接走、默认不设 NO_COLOR，可以检验管道里没有转义码。"""

    def run(*args, timeout=120, input=None, env=None):
        full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        full_env.update({"POET_WORKSPACE": str(workspace), **(env or {})})
        return subprocess.run(
            [sys.executable, "-m", "courseware.cli", *args],
            cwd=ROOT,
            env=full_env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
            input=input,
        )

    return run


@pytest.fixture
def poet_here(workspace, monkeypatch, request):
    """与 poet 一样的 poet(*args) → CompletedProcess，只是在本进程里运行（courseware.cli.main）：省掉一次子进程
    （启动 Python、导入课程包；check 之类还要导入 torch）。给不测进程边界（信号、管道、终端、环境）的测试用：参数、消息、退出码。"""
    from courseware import catalogue

    monkeypatch.setenv("POET_WORKSPACE", str(workspace))
    monkeypatch.delenv("NO_COLOR", raising=False)
    catalogue.workspace.cache_clear()  # workspace() 第一次调用时读环境变量，之后不变
    request.addfinalizer(catalogue.workspace.cache_clear)
    return poet_in_process


def poet_in_process(*args: str) -> subprocess.CompletedProcess:
    """在本进程里运行 poet *args（courseware.cli.main），接走标准输出与标准错误。环境（POET_WORKSPACE 之类）由调用的人
    先设好，catalogue.workspace 的缓存也由调用的人清掉（见 poet_here）。"""
    from courseware.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse：--help（0）或参数写错（2）
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
    return subprocess.CompletedProcess(["poet", *args], code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def site_build(tmp_path_factory):
    """用 ./poet site --out 生成的课程网站（命令行的那一条路），整个测试运行只生成一次：
    SimpleNamespace(out=网站文件夹, returncode, stdout, stderr)。tests/courseware/test_site.py 与 test_site_browser.py 共用，只读不改。

    pytest -n 的几个 worker 共用一份：它们的临时文件夹在同一个上层文件夹里，先到的建一个锁文件夹（mkdir 是原子的）
    去生成，后到的等它写下结果。"""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out, result = shared / "site" / "out", shared / "site" / "result.json"
    builder = shared / "site" / "builder"  # 生成的那个 worker 的进程号
    try:
        (shared / "site").mkdir()
    except FileExistsError:
        while not result.exists():  # 生成的那个 worker 无论成败都写下结果（超时 300 秒也算失败）
            time.sleep(0.2)
            pid = builder.read_text(encoding="utf-8") if builder.exists() else None
            if pid and Path("/proc/self").exists() and not Path(f"/proc/{pid}").exists() and not result.exists():
                pytest.fail("生成网站的那个测试进程没写下结果就退出了")  # 只在有 /proc 的系统上查得到
    else:
        atomic_write_text(builder, str(os.getpid()))
        done = {"returncode": -1, "stdout": "", "stderr": ""}
        try:
            run = subprocess.run(
                [sys.executable, "-m", "courseware.cli", "site", "--out", str(out)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                encoding="utf-8",
                timeout=300,
            )
            done = {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr}
        finally:
            atomic_write_text(result, json.dumps(done, ensure_ascii=False))
    return SimpleNamespace(out=out, **json.loads(result.read_text(encoding="utf-8")))


# ---------- 要沙箱或浏览器的测试：@pytest.mark.sandbox、@pytest.mark.browser ----------


def missing(need: str) -> str | None:
    """本机缺 need（"sandbox" 或 "browser"）时是中文原因，不缺时为 None。"""
    if need == "browser":
        return None if CHROMIUM and CHROMEDRIVER.exists() else "没有装 chromium 与 chromium-driver"
    from courseware.grading import sandbox

    return sandbox.unavailable_reason()


FAST = {
    # 测试文件（相对 tests/）→ 其中属于快速一档的测试函数；None 是整个文件
    **{
        f"lib/test_{name}.py": None
        for name in (
            "batches bigram checkpoint common constraints corpus data generate labs loss model probes "
            "prosody sampling settings time_budget verse"  # test_metrics 与 test_train 要算验证集、训练几步
        ).split()
    },
    **{
        f"courseware/test_{name}.py": None
        for name in "architecture catalogue code_style figures messages names requirements style tiers".split()
    },
    "courseware/test_verify.py": (
        "test_verify_reports_unknown_names_in_check_py",
        "test_check_settings_are_what_the_grader_reads",
        "test_the_grader_package_is_in_every_fingerprint",
        "test_the_fingerprint_follows_every_file_the_checks_read",
    ),
    "cli/test_parser.py": None,
    "cli/test_teacher.py": None,
    "lessons/test_lesson_bank.py": None,
    "lessons/test_all_lessons.py": (
        "test_every_lesson_folder_is_in_the_catalogue",
        "test_starter_is_generated_from_the_solution",
        "test_lesson_files_have_the_course_shape",
    ),
}
"""快速一档（pytest -m fast）：改完一处随手跑的那一档，空闲的两核上一分半以内。课程的每个模块、每一课的参考答案与
起始代码的判定至少各测到一次（tests/courseware/test_tiers.py 检查这两条）；整套测试（CI）才重跑实验、批改全班、
生成网站、换内核。这张表集中在这里，挑哪些、为什么，一处看全。"""


def pytest_configure(config):
    for name, what in NEEDS.items():
        config.addinivalue_line("markers", f"{name}: {what}")
    config.addinivalue_line("markers", "fast: 快速一档（pytest -m fast），见 tests/conftest.py 的 FAST")
    if os.environ.get(EVERYTHING) == "1" and not os.environ.get("PYTEST_XDIST_WORKER"):
        lacking = {name: why for name in NEEDS if (why := missing(name))}
        if lacking:
            raise pytest.UsageError(
                f"{EVERYTHING}=1 要求全部测试都跑，可是本机"
                + "；".join(f"{NEEDS[name]}：{why}" for name, why in lacking.items())
                + f"。装上它们：{INSTALL}"
            )


@pytest.hookimpl(tryfirst=True)  # 先于 -m 的筛选：筛选看得到这里加的 fast
def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).parent
    for item in items:
        chosen = FAST.get(item.path.relative_to(tests).as_posix(), ()) if item.path.is_relative_to(tests) else ()
        if chosen is None or getattr(item, "originalname", item.name) in chosen:
            item.add_marker(pytest.mark.fast)
    reasons: dict[str, str | None] = {}
    for item in items:
        for name in NEEDS:
            if item.get_closest_marker(name) is None:
                continue
            if name not in reasons:
                reasons[name] = missing(name)
            if reasons[name]:
                item.add_marker(pytest.mark.skip(reason=f"{SKIPPED}{NEEDS[name]}；{reasons[name]}"))


def pytest_terminal_summary(terminalreporter):
    """跳过了要沙箱或浏览器的测试时，最后说一行：跳过了几个、怎样让它们也跑。"""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if SKIPPED in str(r.longrepr)]
    if skipped:
        what = "、".join(
            name
            for name, word in (("沙箱（bubblewrap）", "bubblewrap"), ("浏览器（Chromium）", "chromium"))
            if any(word in str(r.longrepr).lower() for r in skipped)
        )
        terminalreporter.write_line(
            f"跳过了 {len(skipped)} 个要{what}的测试：本机没有。装上后再运行同一条命令就会跑：{INSTALL}"
            f"（bash .ci/run 会自动装上，一个不跳）。"
        )
