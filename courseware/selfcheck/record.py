"""记录下来的输出：每课实验的 lessons/NN/output.txt、./poet eval 的 results/eval*.json、训练日志 results/model-log.txt。

./poet verify 运行实验时与这里用同一个环境（RUN_ENV：不带颜色、120 列宽、计时印成 ⟨…⟩），把输出与记录比较
（:func:`output_problem`）；./poet verify --record 重新运行、重写记录（verify.record_all），再由 figures.py 对照课文。

线程数：./poet verify 运行实验（连同 --record）与学习者的 ./poet lesson 都用一个计算线程（defaults.EXPERIMENT_THREADS）；
直接运行 python lessons/NN/experiment.py 时是两个。
换了线程数、CPU 或 BLAS 内核，float32 的加法先后会变，结果差在很后面的位数上：比较输出时（figures.same_line）
同一位置上的数按 figures.agrees 的容差比（最后一位的 1 或相对十万分之一；整数一点不差）。舍入差这种本身就是
噪声的量，实验印成界或标成 measured（见 labs.below、labs.measured）。换一台 CPU 差得更多时报“与记录不同”：
先看那个数是不是噪声（是就印成界），不是再在那台机器上重新 --record，课文里的数只有在四舍五入到课文的位数
之后也变了时才需要改（--record 会列出来）。
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from poetry_gpt.common import ROOT, atomic_write_text

from ..catalogue import Lesson
from .figures import HEADER, MEASURED, RECORDS, same_line

RUN_ENV = {"NO_COLOR": "1", "COLUMNS": "120", "POET_MEASURED": "1"}
"""运行实验时的环境：纯文本、固定宽度（热力图在 120 列里印两位小数）、计时印成 ⟨…⟩。"""
OUTPUT = "output.txt"
EVAL_FILES = {"eval.json": [], "eval-plain.json": ["--plain"], "eval-drafts.json": ["--drafts", "8"]}
"""./poet eval 的三份记录：默认、只守格式、每首写 8 份草稿留一份（与默认并排，第 25 课与 data/MODEL.md）。"""
MODEL_LOG = RECORDS / "model-log.txt"
RECORD_TIMEOUT = 300.0
"""--record 时每个实验至少等这么久：机器忙时（别的进程占着核）平常 25 秒的实验也会超过 verify 默认的 60 秒。"""


def cpu_name() -> str:
    """这台机器的 CPU 型号（Linux 上 /proc/cpuinfo 的 model name）与指令集架构。"""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        name = ""
    return f"{name or platform.processor() or '未知型号'}（{platform.machine()}）"


def run_experiment(lesson: Lesson, timeout: float, threads: int | None) -> subprocess.CompletedProcess:
    """在仓库根目录、RUN_ENV 里运行一课的 experiment.py。threads 给了就设 OMP_NUM_THREADS。

    Raises:
        subprocess.TimeoutExpired: 超过 timeout 秒。
    """
    env = {**os.environ, **RUN_ENV, **({} if threads is None else {"OMP_NUM_THREADS": str(threads)})}
    return subprocess.run(
        [sys.executable, str(lesson.folder / "experiment.py")],
        cwd=ROOT,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=env,
    )


def header(what: str, threads: int | None) -> str:
    """记录文件开头的说明：哪条命令写的、在什么机器上、几个线程。以“# ”起头，不算输出。"""
    import torch

    used = "默认" if threads is None else str(threads)
    return (
        f"{HEADER}{what}：./poet verify --record 写的，不要手改（课文里的数由 ./poet verify 对照它检查）。\n"
        f"{HEADER}机器：{cpu_name()}；计算线程：{used}；torch {torch.__version__}；{datetime.date.today()}。\n"
        f"{HEADER}⟨…⟩ 里的是计时之类随机器而变的量，比较时不看，课文也不该引用。\n"
    )


def body(text: str) -> list[str]:
    """记录（或一次输出）里要比较的各行：去掉开头的说明，⟨…⟩ 换成 ⟨⟩，去掉行尾空白。"""
    lines = text.splitlines()
    while lines and lines[0].startswith(HEADER):
        lines.pop(0)
    return [MEASURED.sub("⟨⟩", line).rstrip() for line in lines]


def output_problem(lesson: Lesson, stdout: str) -> str | None:
    """这次的实验输出与 lessons/NN/output.txt 比较：一样返回 None，否则说明第一处不同（还没有记录时也说）。"""
    path = lesson.folder / OUTPUT
    if not path.is_file():
        return f"还没有记录下来的输出 {path.relative_to(ROOT)}：运行 ./poet verify --record"
    old, new = body(path.read_text(encoding="utf-8")), body(stdout)
    for n, (a, b) in enumerate(zip(old, new), start=1):
        if not same_line(a, b):
            return (
                f"实验输出与 {path.relative_to(ROOT)} 不同（输出的第 {n} 行）：\n  记录：{a.strip()}\n"
                f"  现在：{b.strip()}\n模型或实验改过了，就运行 ./poet verify --record，再按它列出的改课文"
            )
    if len(old) != len(new):
        return f"实验输出有 {len(new)} 行，{path.relative_to(ROOT)} 记录的是 {len(old)} 行：运行 ./poet verify --record"
    return None


def write_output(lesson: Lesson, stdout: str, threads: int | None) -> None:
    """写 lessons/NN/output.txt：说明 + 输出（行尾空白去掉；⟨…⟩ 里留着这台机器上量到的值）。
    除了计时一字不差时不重写：只换了机器或日期，记录不跟着变，git 里也就没有无谓的改动。"""
    lines = [line.rstrip() for line in stdout.splitlines()]
    path = lesson.folder / OUTPUT
    if path.is_file() and body(path.read_text(encoding="utf-8")) == body(stdout):
        return
    atomic_write_text(
        lesson.folder / OUTPUT, header(f"第 {lesson.code} 课实验的输出", threads) + "\n".join(lines) + "\n"
    )


def model_sha256(path: Path | None = None) -> str:
    """存档文件的 sha256：记录里写着它，测试据此发现“换了模型却没有重新记录”。"""
    from poetry_gpt.checkpoint import SHIPPED_MODEL

    return hashlib.sha256(Path(path or SHIPPED_MODEL).read_bytes()).hexdigest()


def model_log_text(path: Path | None = None) -> str:
    """存档里课文会引用的部分：文件大小、参数个数、设置、步数、第一步与最后一步的训练损失、每一次验证。
    不收每一步的训练损失：几千个数里什么都找得到，课文里写错的数也会碰巧对上。"""
    from poetry_gpt.checkpoint import SHIPPED_MODEL, load_model, read_checkpoint

    path = path or SHIPPED_MODEL
    state = read_checkpoint(path)
    log = state["log"]
    size = path.stat().st_size
    lines = [
        f"{HEADER}随课程发布的模型存档里的训练日志：./poet verify --record 写的，不要手改。",
        f"{HEADER}模型 sha256：{model_sha256(path)}",
        f"文件大小：{size} 字节（{size / 1e6:.6f} MB）",
        f"参数个数：{(n := load_model(path)[0].num_parameters())}（约 {n / 1e4:.1f} 万）",
        f"模型设置：{json.dumps(state['model_config'], ensure_ascii=False)}",
        f"训练设置：{json.dumps(state['train_config'], ensure_ascii=False)}",
        f"步数：{state['step']}",
        f"第 {log[0]['step']} 步的训练损失：{log[0]['loss']}",
        f"第 {log[-1]['step']} 步的训练损失：{log[-1]['loss']}",
    ]
    tail = [e["loss"] for e in log if e["step"] > log[-1]["step"] - 200]
    lines.append(f"最后 200 步训练损失的平均：{sum(tail) / len(tail):.5f}")
    best = min((e for e in log if "val" in e), key=lambda e: e["val"], default=None)
    if best is not None:
        lines.append(f"验证损失最低：第 {best['step']} 步 {best['val']}")
    lines += [f"第 {e['step']} 步的验证损失：{e['val']}" for e in log if "val" in e]
    return "\n".join(lines) + "\n"


def eval_text(flags: list[str], timeout: float) -> str:
    """运行 ./poet eval --json（flags 另加参数），每首用时换成 ⟨…⟩，返回排好的 JSON。

    Raises:
        RuntimeError: eval 退出码非零（消息里是它的最后几行）。
    """
    run = subprocess.run(
        [sys.executable, "-m", "courseware.cli", "eval", "--json", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        env={**os.environ, **RUN_ENV},
    )
    if run.returncode != 0:
        raise RuntimeError("\n".join((run.stdout + run.stderr).strip().splitlines()[-5:]))
    result = json.loads(run.stdout)
    result["seconds_per_poem"] = f"⟨{result['seconds_per_poem']:.3f}⟩"
    result["recorded"] = header("./poet eval --json " + " ".join(flags), None).replace(HEADER, "").strip()
    result["model_sha256"] = model_sha256()
    return json.dumps(result, ensure_ascii=False, indent=1) + "\n"


def _same_eval(path: Path, text: str) -> bool:
    """旧的 eval 记录与这次的除了每首用时与说明之外是否相同（相同就不重写）。"""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    new = json.loads(text)
    drop = ("seconds_per_poem", "recorded")
    return {k: v for k, v in old.items() if k not in drop} == {k: v for k, v in new.items() if k not in drop}
