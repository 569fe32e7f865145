"""代码的样子：ruff check 与 ruff format（规则与 120 列写在 pyproject.toml）在整个仓库上都通过；
模块不超过 400 行（维护者用的 corpus.py 除外），函数不超过 60 行——学习者会打开这些文件读。"""

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


def test_modules_and_functions_stay_short():
    long_modules, long_functions = [], []
    for path in sorted((ROOT / "poetry_gpt").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name != "corpus.py" and len(text.splitlines()) > 400:
            long_modules.append(f"{path.relative_to(ROOT)}：{len(text.splitlines())} 行")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > 60:
                long_functions.append(
                    f"{path.relative_to(ROOT)}:{node.lineno} {node.name}：{node.end_lineno - node.lineno + 1} 行"
                )
    assert not long_modules and not long_functions, long_modules + long_functions
