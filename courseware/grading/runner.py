"""在子进程（通常在 bwrap 沙箱里）运行学习者的文件：由 grading/checking.py 启动，不要直接运行。

用法：python -I runner.py LEARNER_PY TRIP_FD ANSWER_FD。批改程序把这个文件和 wire.py 复制进检查的工作文件夹，
从那里运行：两者只用标准库和 torch，沙箱里没有 poetry_gpt 包（学习者的代码也 import 不到它）。

1. 从标准输入读进父进程给的设置（wire 格式）——这时学习者的代码还没运行：用例 cases、本课 check.py 的
   RAISES（内置异常名）、FRESH_RESULT、TRIPWIRES（绊线，见 install_tripwires），以及是否在沙箱里；
2. 可见检查：fork 一个子进程，把学习者的文件当脚本运行一遍（__name__ == "__main__"），执行它底部自带的检查；
   这个子进程（连同它开的进程，在沙箱里时）结束之后，这里才往下走——它手里的东西留不到下一步；
3. 差分检查：先换上本课的绊线，再把文件当模块导入，逐个用例调用 solve；每四个用例里的第一个用同样的参数
   再调用一次（第二次之前，FRESH_RESULT 的课先改写第一次结果里的张量）；
4. 把每次调用的结果（[RETURNED, 值] 或 [RAISED, 异常名]）与调用之后的输入按 wire 格式写进 ANSWER_FD，
   然后立刻 os._exit(0)：学习者注册的 atexit、finally 之类都没有机会再往里写东西。

这个进程只交回“答案”：参考答案、比较与判定都在父进程里。学习者的代码与这个进程权限相同，
能改写这里的任何东西——所以父进程把交回来的一切都当作不可信的，逐项核对格式之后才拿去比较，
而且“不改输入、不与输入共用内存”靠的是交回的输出（调用两次的用例两次都要对），不只是这个进程自己说的“输入没变”。
绊线被碰到时写进 TRIP_FD 并以 SIGKILL 结束进程：学习者的 try/except 接不住，父进程从 TRIP_FD 读出来判定。
"""

import builtins
import errno
import gc
import importlib
import importlib.util
import io
import os
import runpy
import signal
import sys
import tempfile
import time
import traceback
import types
import warnings

import torch

Tensor = torch.Tensor  # 学习者的代码运行之前记下
RETURNED, RAISED = "returned", "raised"  # 与 wire.RETURNED、wire.RAISED 相同（wire 的副本在 main 里才载入）
# 第 0、4、8……个用例调用两次：原地改动输入的 solve 通常每个用例都改，查几个就够（第 18 课一次调用要好几秒）
AGAIN_EVERY = 4
_wires = []  # 换上的 torch.library.Library：留着引用，不然它被回收时绊线就拆掉了


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def learner_traceback(exc, learner_path):
    """只保留学习者自己文件里的栈帧，一帧一行写成“文件 第 N 行（在 solve 里）：源码”，外加最后的错误行
    （异常的类名是 Python 的名字，保留原样；消息是谁写的就是什么语言）。批改程序把临时副本的路径换成学习者的文件名。"""
    # 不预先读每一帧的源码行（lookup_lines=False）：只读学习者文件的，torch 里绊线所在的源码文件不碰
    stack = traceback.StackSummary.extract(traceback.walk_tb(exc.__traceback__), lookup_lines=False)
    frames = [f for f in stack if f.filename == learner_path]
    lines = [
        f"  {learner_path} 第 {f.lineno} 行（{'顶层代码' if f.name == '<module>' else f'在 {f.name} 里'}）："
        f"{(f.line or '').strip()}"
        for f in frames
    ]
    return "\n".join(lines + ["".join(traceback.format_exception_only(type(exc), exc)).rstrip()])


def failure(exc, learner_path, stage):
    """把学习者代码抛出的异常归成一个判定：(status, message)。"""
    if isinstance(exc, NotImplementedError):
        return "not_implemented", str(exc)
    if isinstance(exc, SystemExit):
        return "crashed", f"{stage}：程序调用了 sys.exit({exc.code!r})"
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:  # 撞上了输出文件的大小上限
        return "crashed", f"{stage}：输出太多"
    if isinstance(exc, MemoryError):
        return "crashed", f"{stage}：内存超过上限"
    if isinstance(exc, ModuleNotFoundError) and (package := (exc.name or "").split(".")[0]) in (
        "poetry_gpt",
        "courseware",
    ):
        return "crashed", (
            f"{stage}：检查时练习文件导入不了课程包 {package}——练习只用标准库与 torch，"
            f"要亲手写出这一步，不能调用包里现成的实现：\n{learner_traceback(exc, learner_path)}"
        )
    if isinstance(exc, AssertionError) and stage == "可见检查":
        return "wrong", f"可见检查没通过：\n{learner_traceback(exc, learner_path)}"
    return "crashed", f"{stage}出错：\n{learner_traceback(exc, learner_path)}"


def _resolve(dotted: str):
    """ "torch.nn.functional.cross_entropy" → (所属的模块或类, 属性名, 对象)；找不到时为 None。"""
    parts = dotted.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:-1]:
                owner = getattr(owner, part)
            return owner, parts[-1], getattr(owner, parts[-1])
        except AttributeError:
            return None
    return None


# 在 CPU 上真正算出一个算子的分派键（稠密、稀疏、嵌套、量化张量），以及替它们算的复合键：Autograd、
# Functionalize、vmap 这些键只是转手，最后都落到这里面的一个上
_KERNEL_KEYS = (
    "CPU",
    "SparseCPU",
    "SparseCsrCPU",
    "QuantizedCPU",
    "NestedTensorCPU",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "CompositeImplicitAutograd",
    "CompositeImplicitAutogradNestedTensor",
    "FuncTorchBatchedDecomposition",
)


def _op_kernels(op: str) -> list[tuple[str, str]]:
    """ "_softmax" → [("_softmax", "CPU"), ("_softmax.out", "CPU"), …]：这个算子的每个重载在每个有实现的键上。"""
    packet = getattr(torch.ops.aten, op, None)
    if packet is None:  # 这个版本的 torch 没有这个算子：源码规则仍在
        return []
    found = []
    for overload in packet.overloads():
        qualified = op if overload == "default" else f"{op}.{overload}"
        for key in _KERNEL_KEYS:
            k = getattr(torch._C.DispatchKey, key, None)
            if k is not None and torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{qualified}", k):
                found.append((qualified, key))
    return found


def _python_functions(obj) -> list:
    """obj 背后的 Python 函数：函数本身与它一层层包着的（__wrapped__）；类则是类里定义的每个方法
    （连同 staticmethod、classmethod、property 里的）。C 写的函数没有：它们由算子的绊线管。"""
    if isinstance(obj, type):
        inner = []
        for value in vars(obj).values():
            for part in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
                inner += _python_functions(part) if isinstance(part, types.FunctionType) else []
        return inner
    chain = []
    while isinstance(obj, types.FunctionType) and obj not in chain:
        chain.append(obj)
        obj = getattr(obj, "__wrapped__", None)
    return chain


def _tripwire_code(n_free: int, trip) -> types.CodeType:
    """一段调用 trip() 的代码，自由变量的个数是 n_free：换进原函数的 __code__（个数必须相同）。"""
    cells = [f"_{i}" for i in range(n_free)]
    source = "def outer():\n"
    source += f"    {' = '.join(cells)} = None\n" if cells else ""
    source += "    def tripwire(*args, **kwargs):\n"
    source += f"        ({', '.join(cells)},)\n" if cells else ""
    source += "        (0.5)()\n    return tripwire\n"  # 常量 0.5 稍后换成 trip
    with warnings.catch_warnings():  # “'float' object is not callable”的提示
        warnings.simplefilter("ignore")
        module = compile(source, "<绊线>", "exec")
    outer = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    return inner.replace(co_consts=tuple(trip if type(c) is float else c for c in inner.co_consts))


def _watch_sources(files: dict[str, str], trip_with) -> None:
    """绊线所在的源码文件（路径 → 绊线名）再被读、编译或执行，就碰上绊线：importlib.reload、删掉 sys.modules
    里的项再导入、spec_from_file_location 载入、读出源码或 .pyc 自己编译，都会得到一份没换过的新函数。
    用审计钩子（sys.addaudithook）查 open、compile、exec 与新建代码对象：钩子装上就拆不掉。
    相对路径（经打开的文件夹描述符 dir_fd 打开）按文件名比。"""
    paths = {}
    for path, name in files.items():
        for p in (path, importlib.util.cache_from_source(path)):
            paths[os.path.realpath(p)] = name
    names = {os.path.basename(p): name for p, name in paths.items()}
    realpath, basename, isabs, fsdecode = os.path.realpath, os.path.basename, os.path.isabs, os.fsdecode
    field = {"open": 0, "compile": 1, "code.__new__": 1}

    def hook(event, args):
        if event == "exec":
            target = getattr(args[0], "co_filename", None)
        elif event in field:
            target = args[field[event]]
        else:
            return
        try:
            if type(target) not in (str, bytes):
                return
            target = fsdecode(target)
            name = paths.get(realpath(target)) if isabs(target) else names.get(basename(target))
        except Exception:  # 奇怪的路径（含 NUL……）：不是绊线所在的文件
            return
        if name is not None:
            trip_with(name)

    sys.addaudithook(hook)


def install_tripwires(names, trip_fd: int) -> None:
    """把本课 check.py 的 TRIPWIRES 换成绊线：一碰就把名字写进 trip_fd，再以 SIGKILL 结束本进程（接不住、躲不开）。

    "aten::算子" 按算子换，不按名字：这个算子的每个重载（_softmax 与 _softmax.out，_fused_adamw_ 与
    _fused_adamw_.tensor_lr）在每个 CPU 上真正算它的分派键上的实现（torch.library）。不论从哪个名字、哪条路
    （F.cross_entropy 里面、torch._C 里的原函数、Tensor 的方法、TorchScript、vmap）走到这个算子都会碰上。
    "torch.…" 这样的 Python 名字：名字本身与已载入的 torch 模块里指向同一个对象的每个别名换成绊线；
    它背后的 Python 函数（类则是类里的每个方法）原地换掉代码（__code__），所以谁手里拿着它（类、字典、闭包、
    __wrapped__）、拿它的代码新建函数（types.FunctionType），碰到的都是绊线；它所在的源码文件再被读、编译、
    执行（reload、重新导入），也碰上绊线（_watch_sources）。C 写的函数改不了代码：check.py 同时列出它落到的算子。
    绊线不留原来的函数：从它身上取不回原物。"""
    write, kill, getpid = os.write, os.kill, os.getpid

    def trip_with(name):
        try:
            write(trip_fd, name.encode("utf-8"))
        finally:
            kill(getpid(), signal.SIGKILL)

    def wire(name):
        def tripwire(*args, **kwargs):
            trip_with(name)

        return tripwire

    library = None
    originals = {}
    sources = {}
    for name in names:
        if name.startswith("aten::"):
            for qualified, key in _op_kernels(name.removeprefix("aten::")):
                if library is None:
                    library = torch.library.Library("aten", "IMPL")
                    _wires.append(library)
                with warnings.catch_warnings():  # “覆盖了已注册的实现”的提示：正是我们要的
                    warnings.simplefilter("ignore")
                    library.impl(qualified, wire(name), key)
        elif found := _resolve(name):
            owner, attr, original = found
            for function in _python_functions(original):
                sources.setdefault(function.__code__.co_filename, name)
                function.__code__ = _tripwire_code(len(function.__code__.co_freevars), wire(name))
            setattr(owner, attr, wire(name))
            originals[id(original)] = (original, name)
    for module in [m for n, m in list(sys.modules.items()) if n.split(".")[0] == "torch" and m is not None]:
        for attr, value in list(vars(module).items()):
            hit = originals.get(id(value))
            if hit is not None and hit[0] is value:
                setattr(module, attr, wire(hit[1]))
    if sources:
        _watch_sources(sources, trip_with)


_Base = torch._C.TensorBase  # C 写的类型，改不了：学习者换掉 torch.Tensor 上的方法，这里用的还是原来的
_detach, _stride, _offset, _numel = _Base.detach, _Base.stride, _Base.storage_offset, _Base.numel
_is_float, _shape, _dtype = _Base.is_floating_point, _Base.shape.__get__, _Base.dtype.__get__
_as_strided, _not_, _mul_, _add_ = torch.as_strided, _Base.logical_not_, _Base.mul_, _Base.add_


def _tensors(value):
    """value 本身或它顶层列表、元组里的张量。只认确切的类型：子类的 __iter__ 是学习者的代码。"""
    items = value if type(value) in (list, tuple) else [value]
    return [t for t in items if type(t) is Tensor]


def _overwrite(value) -> None:
    """改写结果里每个张量用到的那段存储（FRESH_RESULT 的课，每次调用之后）：结果要是与某个输入共用内存，
    这个输入就跟着变了——紧接着给参数拍的快照里看得出来，由父进程对照它发出的用例查出。"""
    for t in _tensors(value):
        try:
            t = _detach(t)
            shape, stride = _shape(t), _stride(t)
            span = 1 + sum((n - 1) * s for n, s in zip(shape, stride)) if _numel(t) else 0
            if not span or any(s < 0 for s in stride):
                continue
            flat = _as_strided(t, (span,), (1,), _offset(t))
            if _dtype(flat) == torch.bool:
                _not_(flat)
            elif _is_float(flat):
                _add_(_mul_(flat, -1.5), 0.25)
            else:
                _add_(flat, 1)
        except BaseException:  # 古怪的张量（只读、meta……）：不改，交回时自有判定
            pass


def _quiet():
    """拍快照之前：收起学习者留下的 torch 函数模式与分派模式、跟踪与性能分析函数，让垃圾回收暂停——这些都能在
    runner 的代码中间运行学习者的代码（把输入改回去、伪造快照）。返回恢复垃圾回收的函数。"""
    pop_function, pop_dispatch = torch._C._pop_torch_function_stack, torch._C._pop_torch_dispatch_stack
    function_depth, dispatch_depth = torch._C._len_torch_function_stack, torch._C._len_torch_dispatch_stack
    settrace, setprofile, gc_disable, gc_enable = sys.settrace, sys.setprofile, gc.disable, gc.enable

    def quiet():
        settrace(None)
        setprofile(None)
        gc_disable()
        while function_depth():
            pop_function()
        while dispatch_depth():
            pop_dispatch()
        return gc_enable

    return quiet


def _call(solve, args, expected_errors, learner_py, i):
    """调用一次 solve：[RETURNED, 结果] 或 [RAISED, 异常名]；别的异常是 (status, message)。"""
    try:
        return [RETURNED, solve(*args)]
    except BaseException as e:
        name = next((n for n, cls in expected_errors if isinstance(e, cls)), None)
        if name is not None and not isinstance(e, NotImplementedError):
            return [RAISED, name]
        return failure(e, learner_py, f"第 {i + 1} 个用例")


def visible_check(learner_py):
    """把学习者的文件当脚本运行一遍：正常结束或 sys.exit(0) 为 None，否则是 {"status": ..., "message": ...}。"""
    try:
        runpy.run_path(learner_py, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            return {"status": "crashed", "message": f"可见检查时程序以退出码 {e.code} 结束"}
    except BaseException as e:  # 学习者的任何错误都只是一个判定
        status, message = failure(e, learner_py, "可见检查")
        return {"status": status, "message": message}
    return None


def _capture_saves(captured: list) -> None:
    """check.py 有 saved_problem 的课（第 18 课）：换掉 torch.save，每次存档另用原来的 torch.save 存一份字节，
    放进 captured（uint8 张量），随这次调用交回；批改程序在自己的进程里用 weights_only=True 读回来，看存档里
    真有该存的东西。绕开它（只在内存里复制、存一份空的）的存档，交回的字节里就没有。"""
    save, bytes_io, frombuffer, uint8 = torch.serialization.save, io.BytesIO, torch.frombuffer, torch.uint8

    def saving(obj, f, *args, **kwargs):
        kept = bytes_io()
        save(obj, kept)
        captured.append(frombuffer(bytearray(kept.getvalue()), dtype=uint8))
        return save(obj, f, *args, **kwargs)

    torch.save = torch.serialization.save = saving


_THREADS = (
    "差分检查时练习文件开了线程，solve 返回时它还在运行：线程能在 solve 返回之后再去改动输入、伪造结果，"
    "批改程序要 solve 在返回之前做完全部的事。练习用不着线程"
)


def differential(learner_py, setup, encode, decode, call, overwrite, quiet, alone=None):
    """导入学习者的文件，逐个用例调用 solve，每 AGAIN_EVERY 个里的第一个调用两次。
    返回要交回的 {"status": ..., "message": ...} 或 {"status": "ok", "calls": [每个用例的 [第一次, 第二次, 快照]]}；
    每次调用是 [RETURNED, 值] 或 [RAISED, 异常名]，“第二次”在只调用一次的用例里就是第一次。

    “不改输入、不与输入共用内存”由父进程对照它发出的用例判定：每次调用的参数都从用例的字节新建（上一次调用
    留下的对象与这一次无关，在下一次调用开头把输入改回去也就没有用），调用一返回、学习者的代码还没有机会再运行，
    就给参数拍快照（encode 再 decode）；FRESH_RESULT 的课接着改写结果里的张量（overwrite），再拍一张。
    快照是每次调用的 [调用之后的参数, 改写结果之后的参数或 None, 这次调用存下的存档或 None]（存档见 _capture_saves）。
    encode、decode、call、overwrite、quiet 由 main 在学习者的代码运行之前取下；alone() 说本进程是不是只剩
    一个 Python 线程（调用返回时、拍完快照时各查一次，不然是“答案错误”），在本进程里跑的 run 不查（None）。"""
    expected_errors = [(name, getattr(builtins, name)) for name in setup["raises"]]
    sent = [encode(args) for args in setup["cases"]]  # 学习者的代码运行之前编好
    saves = [] if setup.get("saves") else None
    if saves is not None:
        _capture_saves(saves)
    try:
        solve = getattr(load(learner_py, "learner_exercise"), "solve", None)
    except BaseException as e:
        status, message = failure(e, learner_py, "导入")
        return {"status": status, "message": message}
    if not callable(solve):
        return {"status": "not_implemented", "message": "文件里没有 solve 函数"}
    calls = []
    for i, data in enumerate(sent):
        made, shots = [], []
        for _ in range(2 if i % AGAIN_EVERY == 0 else 1):
            args = decode(data)
            if saves is not None:
                saves.clear()
            got = call(solve, args, expected_errors, learner_py, i)
            if type(got) is tuple:
                return {"status": got[0], "message": got[1]}
            resume = quiet()
            try:
                if alone is not None and not alone():
                    return {"status": "wrong", "message": _THREADS}
                after = decode(encode(args))
                kept = [got[0], decode(encode(got[1]))]  # 定格：改写结果、再调用都碰不到已经记下的
                touched = None
                if setup["fresh"] and got[0] == RETURNED:
                    overwrite(got[1])
                    touched = decode(encode(args))
                if alone is not None and not alone():
                    return {"status": "wrong", "message": _THREADS}
            finally:
                resume()
            made.append(kept)
            shots.append([after, touched, None if saves is None else list(saves)])
        calls.append([made[0], made[-1], shots])
    return {"status": "ok", "calls": calls}


def run(learner_py, cases, raises=(), fresh=False, saves=False):
    """在本进程里跑完可见检查与差分检查，返回要交回的结果（与子进程交回的相同，见 differential）：
    不 fork、不换绊线，tests/lessons 的错解库用它省掉子进程。raises 是 RAISES，fresh 是 FRESH_RESULT，
    saves：本课查存档（check.py 有 saved_problem；换掉的 torch.save 在返回前换回来）。"""
    wire = load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "wire.py"), "wire")
    failed = visible_check(learner_py)
    if failed is not None:
        return failed
    setup = {"cases": cases, "raises": list(raises), "fresh": fresh, "saves": saves}
    save = torch.save
    try:
        return differential(learner_py, setup, wire.encode, wire.decode, _call, _overwrite, _quiet())
    finally:
        torch.save = torch.serialization.save = save


class _NoCompiler(types.ModuleType):
    """torch._dynamo（torch.compile 的编译器）的替身，见 _without_compiler：只答 graph_break 与 disable，
    两者在不编译时都什么也不做；问它别的，就换上真的 torch._dynamo 再答。"""

    @staticmethod
    def graph_break(msg=""):
        return None

    @staticmethod
    def disable(fn=None, recursive=True, **kwargs):
        return fn if fn is not None else (lambda f: f)

    def __getattr__(self, name):
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


def _without_compiler() -> None:
    """检查从不编译（torch.compile）；torch.optim 的优化器却在第一次新建、第一次 step 时导入编译器 torch._dynamo
    （约 2 秒 CPU，可见检查与差分检查各一次），只为标明“这一段不要编译”（disable、graph_break：不编译时都是空操作）。
    换上只答这两样的替身：第 18 课的参考答案因此少花约 4 秒 CPU。用到编译器别的东西时，替身换成真的。"""
    if "torch._dynamo" not in sys.modules:
        sys.modules["torch._dynamo"] = torch._dynamo = _NoCompiler("torch._dynamo")


def _clean_slate(sandboxed: bool) -> None:
    """可见检查的子进程开过的进程（后台进程、孙进程）一个不留：在沙箱里（本进程是命名空间里的 2 号，
    1 号是 bwrap）kill(-1) 只碰得到这个命名空间里的进程。没有沙箱时不做——那会碰到老师自己的进程。"""
    if not (sandboxed and os.getpid() == 2 and os.getppid() == 1):
        return
    for _ in range(50):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        if not [p for p in os.listdir("/proc") if p.isdigit() and p not in ("1", "2")]:
            return
        time.sleep(0.01)  # 刚杀掉的进程等 1 号进程收走


def _forward_death(status: int, exit_now) -> None:
    """可见检查的子进程没有交回结果就结束了：本进程以同样的方式结束，父进程按退出方式判定。"""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    exit_now(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def main():
    learner_py, trip_fd, answer_fd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    wire = load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "wire.py"), "wire")  # 旁边的副本
    # 学习者的代码运行之前就记下要用的函数：它换掉 os.write、wire.encode 或这个文件里的 _overwrite、differential
    # 也只换掉了模块里的名字，这里用的还是原来的
    encode, decode, write, exit_now = wire.encode, wire.decode, os.write, os._exit
    run_cases, overwrite, call, quiet = differential, _overwrite, _call, _quiet()
    setup = decode(sys.stdin.buffer.read())
    sys.stdin = open(os.devnull, encoding="utf-8")
    _without_compiler()

    def send(result, fd=answer_fd):
        if isinstance(result.get("message"), str) and len(result["message"]) > 8000:  # 父进程反正只显示前几 KiB
            result["message"] = result["message"][:8000] + " …（后面省略）"
        try:
            data = memoryview(encode(result))
        except BaseException as e:  # 结果本身编码不了（比如 __iter__ 抛错的列表子类）
            data = memoryview(encode({"status": "crashed", "message": f"交回结果时出错：{type(e).__name__}"}))
        while data:
            data = data[write(fd, data) :]

    # 可见检查在一个 fork 出来的子进程里：它用到的原版 torch 函数、留下的任何对象都到不了差分检查
    # 可见检查的结果放在一块不占内存盘配额的匿名内存里：学习者写满了 /tmp 与工作文件夹，结果也写得进去
    box = os.fdopen(os.memfd_create("visible"), "w+b") if hasattr(os, "memfd_create") else tempfile.TemporaryFile()
    with box:
        child = os.fork()
        if child == 0:
            result = visible_check(learner_py)
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:
                pass
            send(result or {"status": "ok"}, box.fileno())  # 跑完了也要说一声：中途 os._exit(0) 的不算跑完
            exit_now(0)
        _, status = os.waitpid(child, 0)
        _clean_slate(setup["sandboxed"])
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            _forward_death(status, exit_now)
        box.seek(0)
        reported = box.read(1 << 20)
    try:
        result = decode(reported)
        status_ok = type(result) is dict and type(result.get("status")) is str
    except BaseException:  # 什么也没写（可见检查中途以 os._exit(0) 结束），或写的不合格式
        result, status_ok = None, False
    if not status_ok:
        result = {
            "status": "crashed",
            "message": "程序没有交回答案就退出了：可见检查还没跑完，程序就在中途退出了（多半是代码里调用了 os._exit）。"
            "它自己印出的“通过”不算数，值得打开代码看一看",
        }
    if result["status"] != "ok":
        send(result)
        exit_now(0)
    install_tripwires(setup["tripwires"], trip_fd)
    current_frames = sys._current_frames  # 每个有 Python 线程状态的线程一项，连 _thread 直接开的也算

    def alone():
        return len(current_frames()) == 1

    send(run_cases(learner_py, setup, encode, decode, call, overwrite, quiet, alone))
    exit_now(0)


if __name__ == "__main__":
    main()
