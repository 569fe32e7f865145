"""测试共用的夹具：在临时工作区里运行 poet 命令，不碰学习者真实的练习与进度；
要沙箱（bubblewrap）或浏览器（Chromium）的测试在本机没有它们时跳过，最后说一行怎样让它们也跑。"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


# ---------- 要沙箱或浏览器的测试：@pytest.mark.sandbox、@pytest.mark.browser ----------


def missing(need: str) -> str | None:
    """本机缺 need（"sandbox" 或 "browser"）时是中文原因，不缺时为 None。"""
    if need == "browser":
        return None if CHROMIUM and CHROMEDRIVER.exists() else "没有装 chromium 与 chromium-driver"
    from courseware.grading import sandbox

    return sandbox.unavailable_reason()


def pytest_configure(config):
    for name, what in NEEDS.items():
        config.addinivalue_line("markers", f"{name}: {what}")
    if os.environ.get(EVERYTHING) == "1" and not os.environ.get("PYTEST_XDIST_WORKER"):
        lacking = {name: why for name in NEEDS if (why := missing(name))}
        if lacking:
            raise pytest.UsageError(
                f"{EVERYTHING}=1 要求全部测试都跑，可是本机"
                + "；".join(f"{NEEDS[name]}：{why}" for name, why in lacking.items())
                + f"。装上它们：{INSTALL}"
            )


def pytest_collection_modifyitems(config, items):
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
