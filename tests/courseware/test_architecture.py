"""导入结构：模型库 poetry_gpt 与课件 courseware 两翼分明、没有循环导入；课程只用模型库，读模型不经过训练模块。

用 ast 读源码（不运行），所以函数里的延迟导入也算在内。
"""

import re
import sys

import pytest

from courseware.catalogue import LESSONS_DIR
from courseware.selfcheck.imports import imports_of, modules
from poetry_gpt.common import ROOT

MODULES = modules()
GRAPH = {name: {m for m in imports_of(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def test_the_graph_is_read():
    assert "poetry_gpt.model" in GRAPH["poetry_gpt.generate"]
    assert "courseware.catalogue" in GRAPH["courseware.selfcheck.verify"]
    assert GRAPH["poetry_gpt.model"] == set()  # 模型只依赖 torch


def test_no_import_cycle():
    state: dict[str, int] = {}  # 1 = 正在访问，2 = 已完成

    def visit(name, path):
        state[name] = 1
        for dep in GRAPH[name]:
            if state.get(dep) == 1:
                pytest.fail("循环导入：" + " → ".join([*path, name, dep]))
            if dep not in state:
                visit(dep, [*path, name])
        state[name] = 2

    for name in GRAPH:
        if name not in state:
            visit(name, [])


def courseware(name: str) -> bool:
    return name.split(".")[0] == "courseware"


def test_the_model_library_never_imports_the_courseware():
    """poetry_gpt 的每个文件（连同函数里的延迟导入）都不导入 courseware 的任何东西。"""
    library = [n for n in MODULES if n.split(".")[0] == "poetry_gpt"]
    assert "poetry_gpt.train" in library and "poetry_gpt.checkpoint" in library
    assert "courseware.selfcheck.verify" in MODULES and not any(courseware(n) for n in library)
    for name in library:
        wrong = {m for m in imports_of(MODULES[name]) if courseware(m)}
        assert not wrong, f"{name} 导入了课件：{wrong}"


HEAVY = {"torch", "numpy"}


def test_settings_use_only_the_standard_library():
    """settings.py 是 ./poet 解析参数时读的默认值：只用标准库，不导入 poetry_gpt 的别的模块。"""
    found = set(imports_of(MODULES["poetry_gpt.settings"]))
    assert found <= set(sys.stdlib_module_names) | {"__future__"}, found


def test_generation_is_layered():
    """settings → sampling（第 21 课）、constraints（第 22、23 课）、verse（第 24 课）→ generate（解码循环）：
    下层不导入上层。"""
    assert GRAPH["poetry_gpt.sampling"] <= {"poetry_gpt.settings"}
    assert "poetry_gpt.constraints" in GRAPH["poetry_gpt.generate"]
    assert "poetry_gpt.sampling" in GRAPH["poetry_gpt.generate"]
    for lower in ("poetry_gpt.sampling", "poetry_gpt.constraints", "poetry_gpt.verse"):
        assert "poetry_gpt.generate" not in GRAPH[lower], lower
    assert not {"poetry_gpt.constraints", "poetry_gpt.sampling"} & GRAPH["poetry_gpt.verse"]


def test_the_cli_starts_without_torch():
    """./poet 载入 cli/ 的模块时（不算命令函数里的延迟导入）不经任何一条导入链碰到 torch、numpy。"""
    seen: set[str] = set()
    todo = [n for n in MODULES if n.startswith("courseware.cli")]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = imports_of(MODULES[name], top_level=True)
        assert not HEAVY & set(found), f"{name} 一载入就导入了 {HEAVY & set(found)}"
        todo += [m for m in found if m in MODULES]
        parent = name.rpartition(".")[0]
        if parent in MODULES:  # 载入 a.b.c 先要载入 a.b 的 __init__
            todo.append(parent)
    assert "poetry_gpt.settings" in seen


READING = {
    "load_model",
    "read_checkpoint",
    "save_checkpoint",
    "validate_checkpoint",
    "export_model",
    "CheckpointError",
    "SHIPPED_MODEL",
    "CHECKPOINT_NAME",
}
LESSON_FILES = sorted(
    p
    for p in LESSONS_DIR.glob("[0-9][0-9]/*.py")
    if p.name in ("experiment.py", "starter.py", "solution.py", "check.py")
)  # 学习者的练习不算


@pytest.mark.parametrize("path", LESSON_FILES, ids=[f"{p.parent.name}/{p.name}" for p in LESSON_FILES])
def test_lessons_use_only_the_model_library(path):
    found = imports_of(path)
    wrong = [m for m in found if courseware(m)]
    assert not wrong, f"{path} 导入了课件（CLI、批改）：{wrong}"
    assert not found.get("poetry_gpt.train", set()) & READING, "读模型用 poetry_gpt.checkpoint，不经过训练模块"
    if int(path.parent.name) <= 14:  # 训练从第 15 课才开始
        assert "poetry_gpt.train" not in found, f"{path} 导入了训练模块"


def test_lessons_are_found():
    assert len(LESSON_FILES) >= 14 * 4


def test_every_module_is_on_the_map():
    """ARCHITECTURE.md 的地图里有每一个模块（新加的模块要画上去）。"""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    a = text.index("```")
    drawn = set(re.findall(r"[a-z_]+", text[a : text.index("```", a + 3)]))
    modules = {
        p.stem
        for package in ("poetry_gpt", "courseware")
        for p in (ROOT / package).rglob("*.py")
        if p.stem not in ("__init__", "__main__")
    }
    modules -= {p.stem for p in (ROOT / "courseware" / "cli").glob("*.py")}  # cli/ 的房间在地图下面一段
    assert not sorted(modules - drawn)
    cli = text[text.index("`courseware/cli/`") :]
    assert all(
        f"`{p.name}`" in cli
        for p in (ROOT / "courseware" / "cli").glob("*.py")
        if p.stem not in ("__init__", "__main__")
    )


def _files_that_import_us():
    """两个包、bench、各课与测试里的每个 .py（不算 tests/hostile 里故意写坏的练习）。"""
    for folder in ("poetry_gpt", "courseware", "bench", "lessons", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "hostile" not in path.parts and "__pycache__" not in path.parts:
                yield path


def test_every_import_of_ours_resolves():
    """每一条 ``from poetry_gpt.x import y``（连同函数里的延迟导入）取的名字都真有：
    改了名字却漏掉一处延迟导入，要到那条路走到时才报错，这里先查出来。"""
    import importlib

    missing = []
    files = list(_files_that_import_us())
    for path in files:
        for target, names in imports_of(path).items():
            if target not in MODULES:
                continue
            module = importlib.import_module(target)
            missing += [f"{path.relative_to(ROOT)}: {target}.{n}" for n in sorted(names) if not hasattr(module, n)]
    assert len(files) > 200 and not missing, missing


def test_nothing_outside_the_library_takes_its_private_names():
    """课件、bench 与各课从模型库只取公开的名字：别处要用的（如 data.PUNCT_MAP、data.LINE_PATTERN）就不该带下划线。"""
    taken = [
        f"{path.relative_to(ROOT)}: {target}.{n}"
        for path in _files_that_import_us()
        if path.parts[len(ROOT.parts)] in ("courseware", "bench", "lessons")
        for target, names in imports_of(path).items()
        if target.startswith("poetry_gpt")
        for n in names
        if n.startswith("_")
    ]
    assert not taken, taken
