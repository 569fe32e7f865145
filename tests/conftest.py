"""测试共用的夹具：在临时工作区里运行 poet 命令，不碰学习者真实的练习与进度。"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest -n auto（pyproject.toml）：两核的机器上两个 worker 各占一核，各用一个计算线程（连同它们启动的子进程）；
    # 否则两边的线程挤在两个核上互相空等，一起跑并不比一个一个跑快
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
            [sys.executable, "-m", "poetry_gpt.courseware.cli", *args],
            cwd=ROOT,
            env=full_env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
            input=input,
        )

    return run
