#!/usr/bin/env bash
# 创建 .venv 并照 requirements.txt 安装依赖与课程包（可编辑安装 -e .；依赖与 pyproject.toml 一致）。
# 第一次运行时一步一行地说在做什么，并显示 pip 的下载与安装进度（要下载 torch，网慢时要好几分钟）。
# 可以反复运行：requirements.txt 与 pyproject.toml 没变、包也都在时直接跳过，只印一行，一两秒就结束。
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
started=$SECONDS
fresh=0
if [ ! -x .venv/bin/python ]; then
  echo "[1/3] 正在创建虚拟环境 .venv ……"
  "$PY" -m venv .venv
  fresh=1
fi
stamp=.venv/.poetry-gpt-installed  # 上次安装时 requirements.txt 与 pyproject.toml 的摘要
want="$(.venv/bin/python -c 'import hashlib; print(hashlib.sha256(open("requirements.txt", "rb").read() + open("pyproject.toml", "rb").read()).hexdigest())')"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -x .venv/bin/poet ] || ! .venv/bin/python -c '
import importlib.util, sys
sys.exit(any(importlib.util.find_spec(m) is None for m in ("poetry_gpt", "torch", "rich", "pytest", "xdist")))'; then
  [ "$fresh" = 1 ] || echo "[1/3] 虚拟环境 .venv 已有；requirements.txt 或 pyproject.toml 变了，或缺了包，重新安装"
  echo "[2/3] 正在安装课程包 poetry_gpt 与依赖：torch（最大的一个包，要下载几百 MB，最慢的一步）、numpy、rich、"
  echo "      markdown-it-py、pygments，测试用的 pytest、pytest-xdist、selenium。下面是 pip 的进度："
  .venv/bin/python -m pip install --disable-pip-version-check --progress-bar on -r requirements.txt
  echo "$want" > "$stamp"
  echo "[3/3] 安装完成，用了 $((SECONDS - started)) 秒。"
fi
echo "环境已就绪：$(.venv/bin/python -c 'from importlib.metadata import version; print("torch", version("torch"))')"
