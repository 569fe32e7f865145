"""测试的两档：快速一档（pytest -m fast，tests/conftest.py 的 FAST）测到课程的每一个模块、每一课参考答案与起始代码的判定；
表里的每一项都真的选中了测试（文件改名、函数改名之后不会悄悄变空）。"""

import functools
import re
import subprocess
import sys

from conftest import FAST, ROOT

from courseware.catalogue import CATALOGUE
from courseware.selfcheck.imports import module_file, modules, package_imports

TESTS = ROOT / "tests"


@functools.cache
def fast_collection() -> list[str]:
    """pytest -m fast 在 FAST 的几个文件里收集到的测试（节点名，相对 tests/ 的路径开头）。"""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", "-m", "fast"]
        + [str(TESTS / name) for name in FAST],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return [line.removeprefix("tests/") for line in run.stdout.splitlines() if "::" in line]


def test_every_entry_of_the_fast_tier_selects_tests():
    collected = fast_collection()
    for name, functions in FAST.items():
        assert (TESTS / name).is_file(), name
        found = {node.split("::")[1].split("[")[0] for node in collected if node.startswith(f"{name}::")}
        assert found == set(functions) if functions is not None else found, name


def test_the_fast_tier_judges_every_lesson_solution_and_starter():
    """每一课的参考答案“通过”、起始代码“未完成”（本进程里的判定，与 ./poet check 同一个 check_file）都在快速一档里。"""
    collected = fast_collection()
    judged = {
        node.split("[")[1].rstrip("]")
        for node in collected
        if node.startswith(
            "lessons/test_lesson_bank.py::test_in_process_judge_passes_the_solution_and_not_the_starter["
        )
    }
    assert judged == {lesson.code for lesson in CATALOGUE if lesson.available}


def test_the_fast_tier_reaches_every_module():
    """两个包的每一个模块都在快速一档的测试文件的导入图里（直接导入，或经它们导入的课程模块再导入，含函数里的延迟导入）。"""
    files = [TESTS / name for name in FAST]
    seen: set[str] = set()
    todo = set().union(*(package_imports(path) for path in files))
    for path in [
        *files,
        TESTS / "conftest.py",
    ]:  # 以 python -m 包 运行的（poet 夹具，./poet 的那一条路）：那个包的 __main__
        todo |= {f"{m}.__main__" for m in re.findall(r'"-m",\s*"([\w.]+)"', path.read_text(encoding="utf-8"))}
    todo &= set(modules())
    while todo:
        name = todo.pop()
        seen.add(name)
        if name == "courseware.site.charts":  # chart_drawer 按课表的 chart 用 importlib 导入每课的图，导入图里看不到
            todo |= {f"courseware.site.charts.{lesson.chart}" for lesson in CATALOGUE if lesson.chart} - seen
        parents = {name.rsplit(".", k)[0] for k in range(1, name.count(".") + 1)}  # 导入 a.b.c 先导入 a 与 a.b
        todo |= (package_imports(module_file(name)) | (parents & set(modules()))) - seen
    packages = {"poetry_gpt", "courseware"}
    assert sorted(set(modules()) - packages - seen) == []
