"""学习者在 Linux 之外：poet 的模块导入时不碰只有类 Unix 系统才有的模块，doctor 说出是哪种系统。"""

import os
import platform
import subprocess
import sys

import pytest
from conftest import ROOT

from courseware.cli.learner import system_row

UNIX_ONLY = ("fcntl", "resource", "termios", "pty", "tty", "grp", "pwd", "spwd", "crypt", "nis", "syslog")
"""Windows 上没有的标准库模块（macOS 上有）。"""

BLOCK = f"import sys\nfor name in {UNIX_ONLY!r}:\n    sys.modules[name] = None  # 导入它就是 ImportError\n"


def run_blocked(code: str, workspace) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        env={**os.environ, "POET_WORKSPACE": str(workspace), "COLUMNS": "120"},
    )


def test_every_module_imports_without_unix_only_modules(tmp_path):
    """两个包的每一个模块（模型库 poetry_gpt、课件 courseware 与 poet 的各个命令）在导入时都不用 UNIX_ONLY 里的模块：
    要用的（批改时设 rlimit 的 resource）在用到的函数里才导入。"""
    code = """
import importlib, pkgutil, courseware, poetry_gpt
names = [m.name for p in (poetry_gpt, courseware) for m in pkgutil.walk_packages(p.__path__, p.__name__ + ".")]
names = [n for n in names if not n.endswith("__main__")]  # python -m 的入口：导入它就是运行 poet
for name in names:
    importlib.import_module(name)
print(len(names), "个模块")
"""
    done = run_blocked(code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout.split()[0]) > 60


@pytest.mark.parametrize(
    "args",
    [
        ["hint", "9"],
        ["start", "9"],
        ["lesson", "9", "--read"],
        ["write", "月", "--seed", "1"],
        ["train", "--help"],
        ["check", "--help"],
    ],
)
def test_learner_commands_run_without_unix_only_modules(args, tmp_path):
    """学习者的命令（lesson、start、hint、write；train 与 check 至少能解析参数）在没有这些模块的 Python 里照样运行。"""
    done = run_blocked(f"sys.argv = ['poet', *{args!r}]\nfrom courseware.cli import run\nrun()\n", tmp_path)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "Traceback" not in done.stderr
    if args[0] == "start":
        assert (tmp_path / "lessons" / "09" / "my_exercise.py").is_file()


@pytest.mark.parametrize(
    "system, release, expected, ok",
    [
        ("Linux", "6.8.0-49-generic", "Linux（", True),
        ("Linux", "5.15.167.4-microsoft-standard-WSL2", "WSL 2 里", True),
        ("Linux", "4.4.0-19041-Microsoft", "WSL 1", True),
        ("Darwin", "24.1.0", "macOS 15.1", True),
        ("Windows", "10", "请在 WSL 2 的 Ubuntu 里学", False),
    ],
)
def test_doctor_says_which_system_it_is_on(monkeypatch, system, release, expected, ok):
    monkeypatch.setattr(platform, "system", lambda: system)
    monkeypatch.setattr(platform, "release", lambda: release)
    monkeypatch.setattr(platform, "mac_ver", lambda: ("15.1", ("", "", ""), "arm64"))
    name, passed, detail = system_row()
    assert name == "系统" and passed is ok and expected in detail, detail
    if system == "Darwin":
        assert "没有 bubblewrap" in detail and "按进程隔离" in detail


def test_doctor_names_this_system(poet):
    doctor = poet("doctor", env={"COLUMNS": "200"})
    shown = {"Darwin": "macOS"}.get(platform.system(), platform.system())
    assert doctor.returncode == 0 and "系统" in doctor.stdout and shown in doctor.stdout


@pytest.mark.parametrize(
    "entry, expected",
    [
        (None, "还没有安装环境：请先在仓库根目录运行 bash .venv-setup.sh"),
        ("from poetry_gpt.courseware.cli import run", "课程的命令换了位置（courseware 包，见 CHANGELOG.md）"),
    ],
)
def test_poet_script_says_what_to_do_when_the_environment_is_missing_or_stale(tmp_path, entry, expected):
    """仓库根目录的 poet 脚本：没装环境、或环境装在命令搬家之前时，说一句中文、退出码 2，不出 Python 的报错。"""
    (tmp_path / "poet").write_bytes((ROOT / "poet").read_bytes())
    if entry is not None:
        script = tmp_path / ".venv" / "bin" / "poet"
        script.parent.mkdir(parents=True)
        script.write_text(f"#!/bin/sh\n# {entry}\necho 不该运行到这里\n", encoding="utf-8")
        script.chmod(0o755)
    done = subprocess.run(
        ["bash", str(tmp_path / "poet"), "lesson", "1"], capture_output=True, text=True, encoding="utf-8"
    )
    assert done.returncode == 2 and expected in done.stderr and done.stdout == ""
