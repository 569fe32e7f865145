"""安全地读学习者的练习文件（大小上限、不是普通文件、不跟随符号链接），并查它能不能当 Python 运行
（NUL、UTF-8、语法）。都在可信的父进程里、运行任何学习者代码之前做。"""

from __future__ import annotations

import ast
import codecs
import errno
import json
import os
import re
import stat
import subprocess
import sys
import warnings
from pathlib import Path

from poetry_gpt.common import os_reason

from ..messages import not_utf8, syntax_message
from .verdict import MAX_FILE_BYTES

LEARNER_FILE = "<练习文件>"
"""批改程序自己编译、解析学习者的源码时给的文件名：不是一个真的路径，编译器的警告（SyntaxWarning）不会去老师当前
文件夹里找同名的文件来引用。"""


def _quiet() -> None:
    """让 LEARNER_FILE 名下的警告一条也不印（一份 1 MiB 的文件能让 compile 印出几万行）。每次编译前都放一次：
    过滤器是全进程的，导入本模块时放的一条会被外面的 warnings.catch_warnings 收回（放过的再放只是挪到最前面）。"""
    warnings.filterwarnings("ignore", module=re.escape(LEARNER_FILE))


def parse_learner(text: str) -> ast.Module:
    """学习者源码的语法树（源码规则用），警告一条也不印。text 要先过了 compile_problem：大文件的节点数因此有上限。"""
    _quiet()
    return ast.parse(text, LEARNER_FILE)


SYMLINK = "符号链接，不批改"
"""./poet grade 遇到符号链接（或路径经过符号链接）的提交时的原因：链接不跟随，指向的文件一个字节也不读。"""


def read_source(path: Path) -> bytes | str:
    """读一个练习文件（跟随符号链接：./poet check 检查学习者自己指定的文件）。

    Returns:
        文件的字节；读不了（不是普通文件、太大、读不出）时是中文原因。
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # 是个管道也不会卡住
    except OSError as e:
        return f"无法读取这个文件：{os_reason(e)}"
    return _read_fd(fd)


def read_inside(folder: Path, rel: Path) -> bytes | str:
    """读 folder 下的 rel（如 lessons/09/my_exercise.py），一步也不跟随符号链接（./poet grade 用）。

    folder 与 rel 的每一级都用 O_NOFOLLOW 相对上一级打开：检查之后才被换成链接（竞争）也打不开。

    Returns:
        文件的字节；folder 或 rel 的某一级是符号链接时是 SYMLINK；别的读不了的原因是中文说明。
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK  # O_NONBLOCK：是个管道也不会卡住
    *dirs, name = Path(rel).parts
    fd = None
    try:
        fd = os.open(folder, flags | os.O_DIRECTORY)
        for part in dirs:
            inner = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        file_fd = os.open(name, flags, dir_fd=fd)
    except OSError as e:  # 碰上链接时报 ELOOP（有的系统对文件夹报 ENOTDIR）：以 lstat 为准
        return SYMLINK if through_symlink(folder, rel) else f"无法读取这个文件：{os_reason(e)}"
    finally:
        if fd is not None:
            os.close(fd)
    return _read_fd(file_fd)


def read_at(dir_fd: int, name: str) -> bytes | str:
    """读已打开的文件夹 dir_fd 里的文件 name，不跟随符号链接（./poet grade 逐级经文件夹描述符往下走时用）。

    Returns:
        文件的字节；name 是符号链接时是 SYMLINK；别的读不了的原因是中文说明。
    """
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError as e:
        return SYMLINK if e.errno == errno.ELOOP else f"无法读取这个文件：{os_reason(e)}"
    return _read_fd(fd)


def through_symlink(folder: Path, rel: Path) -> bool:
    """folder 本身或 folder/rel 路上的某一级（含 rel 本身）是不是符号链接。只 lstat，不跟随。"""
    path = Path(folder)
    links = [path] + [path := path / part for part in Path(rel).parts]
    return any(map(os.path.islink, links))


def _read_fd(fd: int) -> bytes | str:
    """读一个已打开的文件描述符（读完关掉）：普通文件、不超过 MAX_FILE_BYTES 时返回字节，否则是中文原因。"""
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "这不是一个普通文件"
        if st.st_size > MAX_FILE_BYTES:
            return f"文件超过 {MAX_FILE_BYTES >> 20} MiB，不像是一份练习，没有检查"
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            return f"无法读取这个文件：{os_reason(e)}"
    if len(data) > MAX_FILE_BYTES:
        return f"文件超过 {MAX_FILE_BYTES >> 20} MiB，不像是一份练习，没有检查"
    return data


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")  # PEP 263 的编码声明


def _declares_utf8(name: str) -> bool:
    """编码声明里的名字是不是 UTF-8（照 Python 自己的规范化：utf_8、UTF8、utf-8-unix……都是）。"""
    normal = name[:12].lower().replace("_", "-")
    if normal == "utf-8" or normal.startswith("utf-8-"):
        return True
    try:
        return codecs.lookup(name).name == "utf-8"
    except LookupError:
        return False


def cookie_problem(data: bytes) -> str | None:
    """前两行里声明了 UTF-8 以外的源码编码（# -*- coding: utf-7 -*-）时的中文原因，否则为 None。

    Python 照声明解码，批改程序查源码规则、老师读代码都按 UTF-8：在 utf-7 里，UTF-8 读来是一行注释的文字
    可以是 Python 执行的代码。所以只接受 UTF-8 的源码（不声明，或声明的就是 UTF-8）。"""
    for number, line in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n")[:2], start=1):
        match = _COOKIE.match(line)
        if match and not _declares_utf8(match.group(1).decode("ascii", "replace")):
            name = match.group(1).decode("ascii", "replace")
            return (
                f"第 {number} 行声明了源码编码 {name}：课程只接受 UTF-8 的源码（批改程序查规则、老师读代码都按 UTF-8，"
                f"别的编码下同一行字可能是另一段代码）。请删掉这一行，或改成 # -*- coding: utf-8 -*-"
            )
    return None


def file_problem(data: bytes) -> str | None:
    """文件内容能不能当 Python 运行：NUL、编码（只接受 UTF-8，见 cookie_problem）、语法。
    能时为 None，否则是中文原因（带行号）。开头的 BOM（Windows 记事本存的“UTF-8 带 BOM”）照常接受。"""
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        return (
            f"第 {line} 行有一个空字符（NUL，\\0）：Python 文件里不能有它。"
            f"常见原因是文件被存成了 UTF-16，请用 UTF-8 另存后再检查。"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return not_utf8(line)
    if problem := cookie_problem(data):
        return problem
    return compile_problem(text)


QUICK_BYTES = 64 << 10
"""不超过这么多字节的源码在批改程序自己的进程里编译（一两百行的练习只要几毫秒，错解库要编译几百份）；更大的
交给一个有 CPU 时间与内存上限的子进程（_compile_apart）。"""
COMPILE_CPU_S = 5
"""编译一份大文件最多花批改程序这么多 CPU 秒（子进程的 RLIMIT_CPU）：1 MiB 的文件今天要两三秒。"""
MAX_NODES = 100_000
"""大文件的语法树最多这么多个节点（课程的参考答案最多约一千个）：之后批改程序自己的 ast.parse 与源码规则
花的时间也就有了上限。"""
TOO_COMPLEX = "代码太长或太复杂，Python 编译不了"


def compile_problem(text: str) -> str | None:
    """编译 text（不运行）：能编译时为 None，否则是中文原因（带行号）。编译器的警告一条也不印到老师的终端；
    比 QUICK_BYTES 大的源码在受限的子进程里编译（_compile_apart），批改程序花的时间有上限。"""
    if len(text.encode("utf-8")) > QUICK_BYTES:
        return _compile_apart(text)
    _quiet()
    try:
        compile(text, LEARNER_FILE, "exec", dont_inherit=True)
    except SyntaxError as e:
        return _syntax_reason(e.lineno, e.msg, e.text)
    except (RecursionError, MemoryError):
        return TOO_COMPLEX
    except ValueError as e:
        return f"编译不了：{e}"
    return None


def _syntax_reason(line: int | None, message: str, text: str | None) -> str:
    return f"第 {line} 行：{syntax_message(message)}\n{(text or '').rstrip()}"


# 子进程先给自己设上限（它是可信的代码，学习者的源码只被编译、从不运行），再编译、数语法树的节点，交回一行 JSON
_COMPILER = f"""
import ast, json, resource, sys
resource.setrlimit(resource.RLIMIT_CPU, ({COMPILE_CPU_S}, {COMPILE_CPU_S}))
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
text = sys.stdin.buffer.read().decode("utf-8")
try:
    compile(text, {LEARNER_FILE!r}, "exec", dont_inherit=True)
    out = {{"nodes": sum(1 for _ in ast.walk(ast.parse(text, {LEARNER_FILE!r})))}}
except SyntaxError as e:
    out = {{"line": e.lineno, "msg": e.msg, "text": e.text}}
except (RecursionError, MemoryError):
    out = {{"complex": True}}
except ValueError as e:
    out = {{"value": str(e)}}
sys.stdout.write(json.dumps(out))
"""


def _compile_apart(text: str) -> str | None:
    """在子进程里编译 text：CPU 时间 COMPILE_CPU_S 秒、地址空间 2 GiB，警告与错误输出都丢掉。超了上限、
    语法树多于 MAX_NODES 个节点时是 TOO_COMPLEX 加一句说明。"""
    limit = (
        f"{TOO_COMPLEX}：批改程序只花 {COMPILE_CPU_S} 秒编译一份练习、最多接受 {MAX_NODES} 个语法节点，这份文件超出了"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-W", "ignore", "-c", _COMPILER],
            input=text.encode("utf-8"),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=3 * COMPILE_CPU_S + 10,  # 墙上时间的后备上限：机器很忙时 CPU 时间来得慢
        )
        out = json.loads(done.stdout or b"{}")
    except (subprocess.TimeoutExpired, ValueError):
        return limit
    if "line" in out:
        return _syntax_reason(out["line"], out["msg"], out["text"])
    if "value" in out:
        return f"编译不了：{out['value']}"
    if out.get("nodes", MAX_NODES + 1) > MAX_NODES:  # 没交回节点数：子进程被 RLIMIT_CPU 或内存上限结束了
        return limit
    return None
