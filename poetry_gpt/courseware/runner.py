"""在子进程（通常在 bwrap 沙箱里）运行学习者的文件：由 grading/checking.py 启动，不要直接运行。

用法：python -I runner.py LEARNER_PY [RAISES] ANSWER_FD。RAISES 是逗号分隔的内置异常名（本课 check.py 的 RAISES）：
solve 在某个用例上 raise 了其中之一时，这个用例的结果记作 wire.raised(异常名)，而不是整次检查崩溃。批改程序把这个文件和 wire.py 复制进检查的工作文件夹，
从那里运行：两者只用标准库和 torch，沙箱里没有 poetry_gpt 包（学习者的代码也 import 不到它）。

1. 从标准输入读进父进程给的用例（wire 格式）——这时学习者的代码还没运行；
2. 可见检查：把学习者的文件当脚本运行一遍（__name__ == "__main__"），执行它底部自带的检查；
3. 差分检查：再把文件当模块导入，逐个用例调用 solve；
4. 把每个用例的结果、调用之后的输入、结果是否与某个输入张量共用内存（或失败原因）按 wire 格式写进文件描述符 ANSWER_FD，然后立刻 os._exit(0)：
   学习者注册的 atexit、finally 之类都没有机会再往里写东西。

这个进程只交回“答案”：参考答案、比较与判定都在父进程里。学习者的代码与这个进程权限相同，
能改写这里的任何东西——所以父进程把交回来的一切都当作不可信的，逐项核对格式之后才拿去比较。
"""

import builtins
import errno
import importlib.util
import os
import runpy
import sys
import traceback

import torch

Tensor = torch.Tensor  # 学习者的代码运行之前记下


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def learner_traceback(exc, learner_path):
    """只保留学习者自己文件里的栈帧，一帧一行写成“文件 第 N 行（在 solve 里）：源码”，外加最后的错误行
    （异常的类名是 Python 的名字，保留原样；消息是谁写的就是什么语言）。批改程序把临时副本的路径换成学习者的文件名。"""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == learner_path]
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
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == "poetry_gpt":
        return "crashed", (
            f"{stage}：检查时练习文件导入不了课程包 poetry_gpt——练习只用标准库与 torch，"
            f"要亲手写出这一步，不能调用包里现成的实现：\n{learner_traceback(exc, learner_path)}"
        )
    if isinstance(exc, AssertionError) and stage == "可见检查":
        return "wrong", f"可见检查没通过：\n{learner_traceback(exc, learner_path)}"
    return "crashed", f"{stage}出错：\n{learner_traceback(exc, learner_path)}"


def shared_argument(output, args):
    """output（或它顶层列表、元组里的张量）与第几个张量参数共用内存（从 0 数）；都不共用时为 None。
    返回输入本身或它的视图，调用者以后改动结果时会连输入一起改掉。"""
    outs = [output] if not isinstance(output, (list, tuple)) else list(output)
    for out in outs:
        if not isinstance(out, Tensor):
            continue
        for k, arg in enumerate(args):
            if (
                isinstance(arg, Tensor)
                and out.numel()
                and arg.numel()
                and out.untyped_storage().data_ptr() == arg.untyped_storage().data_ptr()
            ):
                return k
    return None


def run(learner_py, cases, raises=()):
    """运行学习者的文件，返回要交回的 {"status": ..., "message": ...}
    或 {"status": "ok", "outputs": [每个用例的结果], "inputs": [每个用例调用之后的参数],
    "shared": [每个用例的结果与第几个输入张量共用内存，或 None]}。
    raises：内置异常名的元组；solve 在某个用例上 raise 了其中之一（或它的子类），结果记作 {"raised": 异常名}。"""
    expected_errors = [(name, getattr(builtins, name)) for name in raises]
    # 可见检查：正常结束或 sys.exit(0) 都算跑完
    try:
        runpy.run_path(learner_py, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            return {"status": "crashed", "message": f"可见检查时程序以退出码 {e.code} 结束"}
    except BaseException as e:  # 学习者的任何错误都只是一个判定
        status, message = failure(e, learner_py, "可见检查")
        return {"status": status, "message": message}
    # 差分检查
    try:
        solve = getattr(load(learner_py, "learner_exercise"), "solve", None)
    except BaseException as e:
        status, message = failure(e, learner_py, "导入")
        return {"status": status, "message": message}
    if not callable(solve):
        return {"status": "not_implemented", "message": "文件里没有 solve 函数"}
    outputs, shared = [], []
    for i, args in enumerate(cases):
        try:
            output = solve(*args)
        except BaseException as e:
            name = next((n for n, cls in expected_errors if isinstance(e, cls)), None)
            if name is not None and not isinstance(e, NotImplementedError):
                outputs.append({"raised": name})  # 与 wire.raised(name) 相同
                shared.append(None)
                continue
            status, message = failure(e, learner_py, f"第 {i + 1} 个用例")
            return {"status": status, "message": message}
        outputs.append(output)
        try:
            shared.append(shared_argument(output, args))
        except BaseException:  # 结果是个古怪的对象（__iter__ 抛错的列表子类……）：交回时自有判定
            shared.append(None)
    # 用例在调用之后的样子一并交回：父进程据此查出原地改动了输入的 solve
    return {"status": "ok", "outputs": outputs, "inputs": cases, "shared": shared}


def main():
    learner_py, answer_fd = sys.argv[1], int(sys.argv[-1])
    raises = tuple(filter(None, sys.argv[2].split(","))) if len(sys.argv) == 4 else ()
    wire = load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "wire.py"), "wire")  # 旁边的副本
    # 学习者的代码运行之前就记下要用的函数：它换掉 os.write 或 wire.encode 也只影响它自己交什么
    encode, write, exit_now = wire.encode, os.write, os._exit
    cases = wire.decode(sys.stdin.buffer.read())
    sys.stdin = open(os.devnull, encoding="utf-8")
    result = run(learner_py, cases, raises)
    if isinstance(result.get("message"), str) and len(result["message"]) > 8000:  # 父进程反正只显示前几 KiB
        result["message"] = result["message"][:8000] + " …（后面省略）"
    try:
        data = memoryview(encode(result))
    except BaseException as e:  # 结果本身编码不了（比如 __iter__ 抛错的列表子类）
        data = memoryview(encode({"status": "crashed", "message": f"交回结果时出错：{type(e).__name__}"}))
    while data:
        data = data[write(answer_fd, data) :]
    exit_now(0)


if __name__ == "__main__":
    main()
