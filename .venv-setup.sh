#!/usr/bin/env bash
# 创建 .venv 并安装课程依赖。可以反复运行：已装好的包不会重复下载。
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "正在创建虚拟环境 .venv ……"
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
echo "环境已就绪：$(.venv/bin/python -c 'import torch, rich; print("torch", torch.__version__)')"
