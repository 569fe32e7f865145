#!/usr/bin/env bash
# 创建 .venv，照 requirements.txt 安装锁定的依赖（每个包一个确切的版本，由 uv 从 pyproject.toml 生成），
# 再以可编辑方式安装课程包本身（-e .，不再另找依赖）。
# 第一次运行时一步一行地说在做什么，并显示 pip 的下载与安装进度（要下载 torch，网慢时要好几分钟）。
# 可以反复运行：requirements.txt 与 pyproject.toml 没变、包也都在时直接跳过，只印一行，一两秒就结束。
#
#   bash .venv-setup.sh          从默认的包索引（PyPI）安装：Linux 上的 torch 是带 CUDA 的版本（见 CONTRIBUTING.md“安装的是哪种 torch”）
#   bash .venv-setup.sh --cpu    Linux 上改装只用 CPU 的 torch（从 PyTorch 的 CPU 索引 download.pytorch.org 下载，小得多）
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
cpu=0
for arg in "$@"; do
  case "$arg" in
    --cpu) cpu=1 ;;
    *) echo "不认识的参数：$arg（只有 --cpu：Linux 上装只用 CPU 的 torch）" >&2; exit 2 ;;
  esac
done
started=$SECONDS
fresh=0
if [ ! -x .venv/bin/python ]; then
  echo "[1/3] 正在创建虚拟环境 .venv ……"
  "$PY" -m venv .venv
  fresh=1
fi
stamp=.venv/.poetry-gpt-installed  # 上次安装时 requirements.txt、pyproject.toml 与 --cpu 的摘要
want="$(.venv/bin/python -c 'import hashlib, sys; print(hashlib.sha256(open("requirements.txt", "rb").read() + open("pyproject.toml", "rb").read() + sys.argv[1].encode()).hexdigest())' "$cpu")"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -x .venv/bin/poet ] || ! .venv/bin/python -c '
import importlib.util, sys
sys.exit(any(importlib.util.find_spec(m) is None for m in ("poetry_gpt", "courseware", "torch", "rich", "pytest", "xdist")))'; then
  [ "$fresh" = 1 ] || echo "[1/3] 虚拟环境 .venv 已有；requirements.txt 或 pyproject.toml 变了，或缺了包，重新安装"
  echo "[2/3] 正在安装 requirements.txt 锁定的依赖与课程包 poetry_gpt、courseware：torch（最大的一个包，最慢的一步）、numpy、rich、"
  echo "      markdown-it-py、pygments，测试用的 pytest、pytest-xdist、selenium、ruff。下面是 pip 的进度："
  pip=(.venv/bin/python -m pip install --disable-pip-version-check --progress-bar on)
  if [ "$cpu" = 1 ]; then
    torch_pin="$(grep -E '^torch==' requirements.txt | cut -d' ' -f1)"
    echo "      --cpu：先从 PyTorch 的 CPU 索引装 $torch_pin（只用 CPU 的版本）"
    "${pip[@]}" "$torch_pin" --index-url https://download.pytorch.org/whl/cpu
  fi
  "${pip[@]}" -r requirements.txt
  "${pip[@]}" --no-deps -e .
  echo "$want" > "$stamp"
  echo "[3/3] 安装完成，用了 $((SECONDS - started)) 秒。"
fi
echo "环境已就绪：$(.venv/bin/python -c 'from importlib.metadata import version; print("torch", version("torch"))')"
