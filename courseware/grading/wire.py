"""批改程序与检查子进程之间传数据的格式：只有 None、bool、int、float、str、list、tuple、dict 和普通张量。

父进程把用例写成这种格式交给子进程；子进程把学习者 solve 的结果写成这种格式交回来。
父进程读回来时把子进程当作不可信的：大小、嵌套深度、项数、类型、张量的 dtype 与形状都要合规，
否则 decode 抛 WireError（中文原因），由 grading/reply.py 判成一个判定——绝不把对象原样交给比较程序。

格式：MAGIC，8 字节大端的头长度，UTF-8 的 JSON 头，再接张量的原始字节。JSON 里：
普通 JSON 值照写；{"t": [...]} 是元组；{"d": [[键, 值], ...]} 是字典（键为 str 或 int）；
{"x": [dtype, 形状, 步长, 偏移]} 是张量；{"u": "说明"} 是子进程交不回来的值（说明写它的真实类型与原因）。
这个文件既被批改程序导入，也被 runner.py 在子进程里直接导入，所以只依赖标准库和 torch。
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import math

import torch

MAGIC = b"POET-WIRE-1\n"
MAX_DEPTH = 32  # 嵌套层数上限：练习的输入输出最多几层
MAX_ITEMS = 1_000_000  # 节点总数上限
MAX_HEAD = 4 << 20  # JSON 头的字节数上限（最大的一课交回的头约 0.55 MiB）：解码它的时间与内存因此有界
MAX_DIMS = 8  # 张量的维数上限
MAX_EXTENT = 1 << 40  # 每一维的长度与步长都小于它：torch 的 int64 算术不会溢出
DTYPES = {
    str(d).removeprefix("torch."): d
    for d in (
        torch.float64,
        torch.float32,
        torch.float16,
        torch.bfloat16,
        torch.int64,
        torch.int32,
        torch.int16,
        torch.int8,
        torch.uint8,
        torch.bool,
    )
}


class WireError(ValueError):
    """数据不合格式；消息是中文原因。"""


class Unsupported:
    """子进程交不回来的值的占位：what 写明真实类型与原因，如“numpy.ndarray”“meta 张量（没有数值）”。"""

    def __init__(self, what: str):
        self.what = what

    def __repr__(self) -> str:
        return f"<{self.what}>"

    def __eq__(self, other):
        return isinstance(other, Unsupported) and other.what == self.what


RETURNED, RAISED = "returned", "raised"
"""差分检查里一次调用的两种结果的标签。子进程交回的每次调用是 [标签, 内容]：[RETURNED, 返回值] 或
[RAISED, 异常名]。标签由 runner 放在返回值之外的位置：返回值是什么（哪怕是 {"raised": "ValueError"}
这样的字典）都只是 RETURNED 的内容，冒充不了 RAISED。"""


class Raised:
    """批改程序这一侧“这个用例 raise 了 name（如 ValueError）”的记号：参考答案的输出与读回的学习者输出都用它。
    decode 从不把交回的值变成 Raised——只有 RAISED 标签的那一格会。只用于 check.py 的 RAISES 里列出的异常。"""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"raise {self.name}"

    def __eq__(self, other):
        return isinstance(other, Raised) and other.name == self.name


def type_name(value) -> str:
    """值的真实类型名：内置类型只写名字，别的带上模块，如 numpy.ndarray。"""
    t = type(value)
    module = getattr(t, "__module__", "") or ""
    return t.__qualname__ if module == "builtins" else f"{module}.{t.__qualname__}"


# 编码张量只经 C 写的 TensorBase 上的方法（改不了）：学习者的进程换掉 torch.Tensor 上的方法（detach、data_ptr……），
# 也改不了 runner 给参数与结果拍的快照。这些在 wire 载入时就取下
_Base = torch._C.TensorBase
_layout, _device, _dtype, _shape = (getattr(_Base, n).__get__ for n in ("layout", "device", "dtype", "shape"))
_detach, _cpu, _resolve_conj, _resolve_neg = _Base.detach, _Base.cpu, _Base.resolve_conj, _Base.resolve_neg
_stride, _contiguous, _offset, _numel = _Base.stride, _Base.contiguous, _Base.storage_offset, _Base.numel
_element_size, _data_ptr, _new_empty, _as_strided = (
    _Base.element_size,
    _Base.data_ptr,
    _Base.new_empty,
    torch.as_strided,
)
_TENSORS = (torch.Tensor, torch.nn.Parameter)


def _tensor_problem(t: torch.Tensor) -> str | None:
    if _layout(t) != torch.strided:
        return f"{_layout(t)} 布局的张量（请返回普通的稠密张量）"
    if _device(t).type == "meta":
        return f"meta 张量（只有形状 {list(_shape(t))}，没有数值）"
    if str(_dtype(t)).removeprefix("torch.") not in DTYPES:
        return f"dtype 为 {_dtype(t)} 的张量（只认浮点、整数与布尔张量）"
    return None


class _Encoder:
    def __init__(self, limit: int):
        self.limit = limit
        self.blobs: list[bytes] = []
        self.size = 0  # 张量的逻辑字节数
        self.blob_size = 0  # 实际写出的字节数
        self.items = 0

    def node(self, value, depth: int):
        self.items += 1
        if depth >= MAX_DEPTH or self.items > MAX_ITEMS:
            return {"u": f"嵌套太深或项数太多的 {type_name(value)}"}
        if value is None or type(value) in (bool, str):
            return value
        if type(value) is Unsupported:  # 先解码再重新编码的值（runner 的快照）：保留原来的说明
            return {"u": value.what}
        if type(value) is int:
            return value if abs(value) < 1 << 4000 else {"u": "大得离谱的 int"}
        if type(value) is float:
            return value  # nan 与 inf 也照写（JSON 扩展写法 NaN、Infinity）
        if isinstance(value, torch.Tensor):
            if type(value) not in _TENSORS:
                return {"u": f"张量子类 {type_name(value)}（请返回普通的 torch.Tensor）"}
            problem = _tensor_problem(value)
            if problem:
                return {"u": problem}
            try:
                return {"x": self.tensor(value)}
            except WireError as e:  # 只有这一个张量作废，别的用例照常交回
                return {"u": str(e)}
        if isinstance(value, (list, tuple)):  # torch.return_types 之类的元组子类按元组交回
            items = [self.node(v, depth + 1) for v in value]
            return items if isinstance(value, list) else {"t": items}
        if isinstance(value, dict):
            pairs = []
            for k, v in value.items():
                if type(k) not in (str, int):
                    return {"u": f"键为 {type_name(k)} 的字典（键只能是 str 或 int）"}
                pairs.append([k, self.node(v, depth + 1)])
            return {"d": pairs}
        for base in (bool, int, float, str):  # IntEnum、str 子类等：按基本类型交回
            if isinstance(value, base):
                return self.node(base(value) if base is not str else str.__str__(value), depth)
        return {"u": type_name(value)}

    def tensor(self, t: torch.Tensor):
        """写下张量的形状、步长和它用到的那一段存储：转置出来的不连续张量到了对面也还是不连续的。"""
        t = _resolve_neg(_resolve_conj(_cpu(_detach(t))))
        if any(s < 0 for s in _stride(t)):
            t = _contiguous(t)
        shape, stride = list(_shape(t)), list(_stride(t))
        span = _span(shape, stride)
        flat = _as_strided(t, (span,), (1,), _offset(t)) if span else _new_empty(t, 0)
        logical = _numel(t) * _element_size(t)  # 与 decode 一样按逻辑大小算：步长为 0 的巨型视图也算“太大”
        if self.size + logical > self.limit:
            raise WireError(f"张量 {shape} 太大（{logical / 2**20:.1f} MiB，交回的总量上限 {self.limit >> 20} MiB）")
        flat = _contiguous(flat)
        data = ctypes.string_at(_data_ptr(flat), span * _element_size(flat)) if span else b""  # 不依赖 numpy
        offset = self.blob_size
        self.blobs.append(data)
        self.size += logical
        self.blob_size += len(data)
        return [str(_dtype(t)).removeprefix("torch."), shape, stride, offset]


def _span(shape: list[int], stride: list[int]) -> int:
    """按这个形状与步长取数，要用到多少个连续的元素（有一维为 0 时为 0）。"""
    if 0 in shape:
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(shape, stride))


# 载入时取下（与上面 TensorBase 的方法一样）：学习者的进程换掉 gc.disable，runner 拍快照时也不会运行它的代码
_gc_enabled, _gc_disable, _gc_enable = gc.isenabled, gc.disable, gc.enable


@contextlib.contextmanager
def _gc_paused():
    """编码、解码时暂停垃圾回收：一份大的用例（第 19 课的日志有 19478 条）要新建几十万个小对象，它们都活到最后，
    回收器却每新建几百个就扫一遍，导入了 torch 的进程里这要占编解码一半的 CPU。调用前本来就停着的（runner 拍快照时），
    之后也停着。开关是整个进程的：./poet grade 的几个线程同时编解码时，先做完的那个打开它，别的线程只是慢一些。"""
    enabled = _gc_enabled()
    _gc_disable()
    try:
        yield
    finally:
        if enabled:
            _gc_enable()


def encode(value, limit: int = 24 << 20) -> bytes:
    """把 value 写成字节串。交不回来的部分写成 Unsupported；总字节数超过 limit 时，
    超出的那些张量写成“太大”的 Unsupported，而不是让整份结果作废。"""
    enc = _Encoder(limit)
    with _gc_paused():
        head = json.dumps(enc.node(value, 0), allow_nan=True).encode("ascii")
    return MAGIC + len(head).to_bytes(8, "big") + head + b"".join(enc.blobs)


def decode(data: bytes | bytearray, limit: int = 32 << 20):
    """把 encode 写的字节串读回来；任何不合格式之处都抛 WireError（中文原因）。"""
    if len(data) > limit:
        raise WireError(f"交回的数据太大（{len(data) / 2**20:.1f} MiB，上限 {limit >> 20} MiB）")
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        raise WireError("交回的数据开头不对")
    start = len(MAGIC) + 8
    size = int.from_bytes(data[len(MAGIC) : start], "big")
    if size > len(data) - start:
        raise WireError("交回的数据不完整")
    if size > MAX_HEAD:
        raise WireError(f"交回的数据里文字部分太大（{size / 2**20:.1f} MiB，上限 {MAX_HEAD >> 20} MiB）")
    with _gc_paused():
        try:
            head = json.loads(bytes(data[start : start + size]).decode("utf-8"), object_pairs_hook=_one_key)
        except RecursionError:
            raise WireError("交回的数据嵌套太深") from None
        except (ValueError, UnicodeDecodeError) as e:
            raise WireError(f"交回的数据不是合法的格式（{type(e).__name__}）") from None
        blob = memoryview(bytearray(data[start + size :]))
        counter = [0, 0, limit]  # 节点数、张量的逻辑字节数、字节数上限
        return _build(head, blob, 0, counter)


def _one_key(pairs):
    if len(pairs) != 1 or pairs[0][0] not in ("t", "d", "x", "u"):
        raise ValueError("unknown object")
    return pairs[0]  # (标签, 内容)：与 JSON 数组（list）区分开


def _build(node, blob: memoryview, depth: int, counter: list[int]):
    counter[0] += 1
    if depth > MAX_DEPTH:
        raise WireError("交回的数据嵌套太深")
    if counter[0] > MAX_ITEMS:
        raise WireError("交回的数据项数太多")
    if node is None or type(node) in (bool, int, float, str):
        if type(node) is str:
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:  # 孤立的代理字符：换成可见的转义
                node = node.encode("utf-8", "backslashreplace").decode("utf-8")
        return node
    if type(node) is list:
        return [_build(v, blob, depth + 1, counter) for v in node]
    if type(node) is not tuple:
        raise WireError("交回的数据里有不认识的内容")
    tag, body = node
    if tag == "t" and type(body) is list:
        return tuple(_build(v, blob, depth + 1, counter) for v in body)
    if tag == "d" and type(body) is list:
        out = {}
        for pair in body:
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) not in (str, int):
                raise WireError("交回的字典格式不对")
            out[pair[0]] = _build(pair[1], blob, depth + 1, counter)
        return out
    if tag == "u" and type(body) is str:
        return Unsupported(body[:200])
    if tag == "x":
        return _tensor(body, blob, counter)
    raise WireError("交回的数据里有不认识的内容")


def _tensor(body, blob: memoryview, counter: list[int]) -> torch.Tensor:
    """按描述 [dtype, 形状, 步长, 偏移] 从 blob 里取出张量。torch 见到描述之前先逐项核对：维数、每维的长度与步长
    （非负、小于 MAX_EXTENT）、元素个数乘字节数（计入总量上限）、用到的那段存储在 blob 之内；不合就是 WireError。"""
    if (
        type(body) is not list
        or len(body) != 4
        or type(body[0]) is not str
        or body[0] not in DTYPES
        or type(body[1]) is not list
        or type(body[2]) is not list
        or len(body[1]) > MAX_DIMS
        or len(body[2]) != len(body[1])
        or any(type(n) is not int or not 0 <= n < MAX_EXTENT for n in body[1] + body[2])
        or type(body[3]) is not int
        or not 0 <= body[3] < MAX_EXTENT
    ):
        raise WireError("交回的张量描述不对")
    dtype, shape, stride, offset = DTYPES[body[0]], body[1], body[2], body[3]
    itemsize = torch.empty((), dtype=dtype).element_size()
    counter[1] += math.prod(shape) * itemsize  # 按逻辑大小算：步长为 0 的“小”张量展开后也可能极大
    if counter[1] > counter[2]:
        raise WireError("交回的张量太大")
    span = _span(shape, stride)
    if offset + span * itemsize > len(blob):
        raise WireError("交回的张量数据不完整")
    try:
        if span == 0:
            return torch.empty(shape, dtype=dtype)
        flat = torch.frombuffer(blob, dtype=dtype, count=span, offset=offset)
        return torch.as_strided(flat, shape, stride)
    except (RuntimeError, ValueError, OverflowError, TypeError) as e:  # 上面核对过；万一 torch 仍不接受，也只是格式不对
        raise WireError(f"交回的张量描述不对（{type(e).__name__}）") from None
