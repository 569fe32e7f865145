#!/usr/bin/env bash
# 创建 .venv 并以可编辑方式安装课程（pip install -e .，依赖都写在 pyproject.toml 里）。
# 可以反复运行：pyproject.toml 没变、包也都在时直接跳过，一两秒就结束。
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "正在创建虚拟环境 .venv ……"
  "$PY" -m venv .venv
fi
stamp=.venv/.poetry-gpt-installed  # 上次安装时 pyproject.toml 的摘要
want="$(.venv/bin/python -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -x .venv/bin/poet ] || ! .venv/bin/python -c '
import importlib.util, sys
sys.exit(any(importlib.util.find_spec(m) is None for m in ("poetry_gpt", "torch", "rich", "pytest", "xdist")))'; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
  echo "$want" > "$stamp"
fi
echo "环境已就绪：$(.venv/bin/python -c 'from importlib.metadata import version; print("torch", version("torch"))')"
