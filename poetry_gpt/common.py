"""全课共用的小工具：仓库位置、数据文件路径、UTF-8 读写、原子写入、随机种子、系统错误的中文说法。"""

from __future__ import annotations

import errno
import json
import os
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10：同一个解析器的独立发行版（pyproject.toml 里按版本装）
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
"""仓库根目录。"""

DEFAULT_DATA = ROOT / "data"
"""随课程发布的数据目录：poems.jsonl、vocab.json、tones.json、t2s.json、模型。"""

COURSE_SEED = 26
"""全课的随机种子（26 课）：实验、训练、评估的提示默认都用它，结果每次相同。
起始文件与参考答案要能单独下载，不导入本包，所以在那里写的是同一个数 26。"""


class DataFileError(ValueError):
    """数据文件缺失或格式不对；消息是给学习者看的中文。"""


def read_json(path: str | os.PathLike) -> Any:
    """按 UTF-8 读取一个 JSON 文件。

    Raises:
        DataFileError: 文件不存在或不是合法 JSON（消息里写明文件名）。
    """
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise DataFileError(f"找不到数据文件：{path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DataFileError(f"{path} 不是合法的 UTF-8 JSON：{e}") from None


def read_toml(path: str | os.PathLike) -> dict:
    """读取一个 TOML 文件（如课表 lessons/manifest.toml）。

    Raises:
        DataFileError: 文件不存在或不是合法 TOML（消息里写明文件名）。
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:  # TOML 规定是 UTF-8，tomllib 只收字节
            return tomllib.load(f)
    except FileNotFoundError:
        raise DataFileError(f"找不到数据文件：{path}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise DataFileError(f"{path} 不是合法的 TOML：{e}") from None


def iter_jsonl(path: str | os.PathLike) -> Iterator[Any]:
    """逐行读取 JSON Lines 文件（UTF-8），空行跳过。

    Raises:
        DataFileError: 文件不存在，或某一行不是合法 JSON（消息里写明文件名与行号）。
    """
    path = Path(path)
    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError(f"找不到数据文件：{path}") from None
    with f:
        line_no = 0
        try:
            for line_no, line in enumerate(f, start=1):
                if line.strip():
                    yield json.loads(line)
        except json.JSONDecodeError as e:
            raise DataFileError(f"{path} 第 {line_no} 行不是合法 JSON：{e.msg}") from None
        except UnicodeDecodeError:
            raise DataFileError(f"{path} 第 {line_no + 1} 行附近不是 UTF-8 编码") from None


def read_jsonl(path: str | os.PathLike) -> list[Any]:
    """把 JSON Lines 文件整个读成列表；错误同 :func:`iter_jsonl`。"""
    return list(iter_jsonl(path))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """先写同目录下的临时文件再改名，断电或 Ctrl-C 时旧文件要么完整保留、要么被完整替换。"""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            # mkstemp 建的是 0600；存档、报告要像普通文件一样可以分享。经描述符改：别人能写的文件夹里，
            # 临时文件的名字可能已被换成指向别处的链接，按名字 chmod 会改到链接指向的文件
            os.fchmod(f.fileno(), 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """以 UTF-8 原子写入文本（见 :func:`atomic_write_bytes`）。"""
    atomic_write_bytes(path, text.encode("utf-8"))


OS_REASONS = {
    errno.ENOENT: "没有这个文件或文件夹",
    errno.EACCES: "没有权限",
    errno.EPERM: "不允许这样操作",
    errno.ENOSPC: "磁盘满了",
    errno.EROFS: "那里是只读的",
    errno.EISDIR: "这是一个文件夹",
    errno.ENOTDIR: "路径里有一段不是文件夹",
    errno.EEXIST: "已经存在",
    errno.ENAMETOOLONG: "名字太长",
    errno.ELOOP: "符号链接绕了太多层",
    errno.EADDRINUSE: "端口已被占用",
}
"""常见的系统错误（errno）的中文说法：操作系统给的原因（e.strerror）是英文。"""


def os_reason(e: OSError) -> str:
    """OSError 的原因，给学习者看：常见的几种（见 OS_REASONS）换成中文，其余照系统的原话。"""
    return OS_REASONS.get(e.errno) or e.strerror or str(e)


def seed_everything(seed: int) -> None:
    """同时固定 Python 与 torch 的随机数，让实验每次打印相同的结果。"""
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
