"""代码的样子：ruff check 与 ruff format（规则与 120 列写在 pyproject.toml）在整个仓库上都通过；
每个模块的文档字符串第一行说出它的一件事。模块按概念分，不按行数分：以前的 400 行、60 行上限让一些模块只为凑行数而拆开，已经不用。"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

RUFF = Path(sys.executable).with_name("ruff")


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]], ids=["check", "format"])
def test_ruff_passes(args):
    run = subprocess.run([str(RUFF), *args], cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def test_every_module_says_its_one_concept_first():
    silent = []
    for path in sorted(p for package in ("poetry_gpt", "courseware") for p in (ROOT / package).rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if not doc or not doc.splitlines()[0].strip():
            silent.append(str(path.relative_to(ROOT)))
    assert not silent, silent
