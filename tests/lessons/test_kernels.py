"""录下的数不只在录它的那一种 CPU 内核上成立：几课实验在 torch 的每一种能用的 CPU 内核
（ATEN_CPU_CAPABILITY：default 是不用向量指令的通用内核，avx2，CPU 有 AVX-512 时再加 avx512；ARM 上是 default 与它自己的那一种）
下运行，每一种的输出都要与 lessons/NN/output.txt 相同——按 figures.same_line 的规则
（带小数的数差在最后一位以内或相对十万分之一以内，整数与文字一点不差）。

线程数：./poet lesson 与 ./poet verify 用一个计算线程（defaults.EXPERIMENT_THREADS），所以每一种内核都在 1 个线程下跑；
直接运行 python lessons/NN/experiment.py 时是两个，这条路只在这台 CPU 自己的内核上再跑一次（2 个线程时求和分成两半，
与内核无关；每种内核再各跑一次 2 个线程，整套测试要多一分半钟，查到的还是同一件事）。

挑的是数出自不同种类浮点运算、换了内核印出的数真的会变的几课（课表 lessons/manifest.toml 里 kernel_sensitive = true）：07 大量的求和（困惑度）、13 层归一化、15 交叉熵与梯度、
17 训练循环与梯度范数、18 带 dropout 的训练与续训。第 21 课（温度与截断采样）原先也在：2026-12-07 在 AVX2 的机器上
量过，default 与 avx2 内核、1 与 2 个线程下它印的一字不差（这几处求和的差别到不了它印的位数），重跑查不出什么，就不再跑；
其余几课在 default 内核下印的与这台机器自己的内核印的不是一字一字相同。几课合起来每种组合两分钟上下的 CPU 时间。
test_all_lessons.py 在这台机器自己的内核、1 个线程上跑全部 26 课，这里跑其余的组合。
每种组合只开一个进程、在里面依次运行这几课的实验（runpy，与直接运行 experiment.py 一样以 __main__ 运行、
sys.path 的第一项是课的文件夹）：导入 torch 每种组合一次，不是每课一次。每个实验开头的 setup_experiment
重新设线程数与全部随机数种子，所以前一课的实验不影响后一课印的数。
"""

import functools
import os
import subprocess
import sys

import pytest
import torch
from conftest import ROOT

from courseware.catalogue import BY_NUMBER, CATALOGUE
from courseware.selfcheck.record import RUN_ENV, output_problem

KERNEL_LESSONS = tuple(lesson.number for lesson in CATALOGUE if lesson.kernel_sensitive)
"""课表里 kernel_sensitive = true 的几课。"""


def capability(env_value: str | None) -> str:
    """在一个新进程里，ATEN_CPU_CAPABILITY 设为 env_value（None：不设）时 torch 用的内核。"""
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    if env_value is not None:
        env["ATEN_CPU_CAPABILITY"] = env_value
    done = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout.strip()


# 这台 CPU 上 torch 自己挑的（最快的）一种：AVX2、AVX512……（环境里已经设了 ATEN_CPU_CAPABILITY 时另开进程去问）
NATIVE = capability(None) if "ATEN_CPU_CAPABILITY" in os.environ else torch.backends.cpu.get_cpu_capability()
CAPABILITIES = list(dict.fromkeys(["default", *(["avx2"] if NATIVE == "AVX512" else []), NATIVE.lower()]))
"""要试的内核：通用的 default 到这台 CPU 支持的最高一种。不能要 CPU 没有的：torch 不拒绝，运行到那里就是非法指令。"""


@pytest.mark.parametrize("name", CAPABILITIES)
def test_the_capability_asked_for_is_the_one_torch_uses(name):
    assert capability(name) == name.upper()


COMBINATIONS = [(name, 1) for name in CAPABILITIES if name != NATIVE.lower()] + [(NATIVE.lower(), 2)]
"""(内核, 线程数)：别的每一种内核 1 个线程，这台 CPU 自己的内核 2 个线程；自己的内核、1 个线程不在这里：
test_all_lessons.py 已经这样跑过每一课。"""


MARK = "==== poet-kernel-run ===="
"""驱动程序在每个实验之后印的一行的开头：后面是课号与 ok 或 failed，输出据此切成每课一段。"""
DRIVER = f"""
import runpy, sys, traceback
for path in sys.argv[1:]:
    folder = path.rsplit("/", 1)[0]
    sys.path.insert(0, folder)
    status = "ok"
    try:
        runpy.run_path(path, run_name="__main__")
    except BaseException:
        traceback.print_exc()
        status = "failed"
    finally:
        sys.path.remove(folder)
    sys.stdout.flush()
    print({MARK!r}, path, status, flush=True)
"""


@functools.cache
def kernel_run(name: str, threads: int) -> tuple[dict[int, tuple[str, str]], str]:
    """一个进程里、ATEN_CPU_CAPABILITY=name、threads 个线程下依次运行 KERNEL_LESSONS 的实验。
    返回 (课号 → (ok 或 failed, 这一课印的), 整个进程的 stderr)；进程没走完的课不在字典里。"""
    paths = [str(BY_NUMBER[number].folder / "experiment.py") for number in KERNEL_LESSONS]
    run = subprocess.run(
        [sys.executable, "-c", DRIVER, *paths],
        cwd=ROOT,
        env={**os.environ, **RUN_ENV, "ATEN_CPU_CAPABILITY": name, "OMP_NUM_THREADS": str(threads)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600 * len(paths),
    )
    by_lesson, rest = {}, run.stdout
    for number, path in zip(KERNEL_LESSONS, paths):
        chunk, found, rest = rest.partition(f"{MARK} {path} ")
        if not found:
            break
        status, _, rest = rest.partition("\n")
        by_lesson[number] = (status, chunk)
    return by_lesson, run.stderr


@pytest.mark.parametrize("name, threads", COMBINATIONS, ids=[f"{n}-{t}" for n, t in COMBINATIONS])
@pytest.mark.parametrize("number", KERNEL_LESSONS, ids=[f"{n:02d}" for n in KERNEL_LESSONS])
def test_the_recording_holds_on_every_kernel_and_thread_count(number, name, threads):
    lesson = BY_NUMBER[number]
    by_lesson, stderr = kernel_run(name, threads)
    assert number in by_lesson and by_lesson[number][0] == "ok", stderr[-3000:]
    problem = output_problem(lesson, by_lesson[number][1])
    assert problem is None, f"ATEN_CPU_CAPABILITY={name}，{threads} 个线程：{problem}"
