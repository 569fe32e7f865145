"""在子进程里检查学习者的文件：由 grading.py 启动，不要直接运行。

用法：python -I runner.py ROOT CHECK_PY LEARNER_PY OUT_FILE SEED

1. 先用 check.py 生成随机用例（学习者的代码还没运行，碰不到随机数）；
2. 可见检查：把学习者的文件当脚本运行一遍（__name__ == "__main__"），执行它底部自带的检查；
3. 差分检查：再把文件当模块导入，逐个用例调用 solve。

结果用 torch.save 写进 OUT_FILE；父进程用 weights_only=True 读回来，再与参考答案比较——
比较发生在父进程里，学习者的代码碰不到参考答案的结果。两步在同一个进程里做，只导入一次 torch。
"""
import errno
import importlib.util
import runpy
import sys
import traceback


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plain(value):
    """只留下 torch.load(weights_only=True) 读得回来的类型；别的类型记下名字。"""
    import torch
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().clone()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        items = [plain(v) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return {"__unsupported__": type(value).__name__}


def learner_traceback(exc, learner_path):
    """只保留学习者自己文件里的栈帧，外加最后的错误行。"""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == learner_path]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


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
    if isinstance(exc, AssertionError) and stage == "可见检查":
        return "wrong", f"可见检查没通过：\n{learner_traceback(exc, learner_path)}"
    return "crashed", f"{stage}出错：\n{learner_traceback(exc, learner_path)}"


def run(learner_py, cases):
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
    outputs = []
    for i, args in enumerate(cases):
        try:
            outputs.append(plain(solve(*args)))
        except BaseException as e:
            status, message = failure(e, learner_py, f"第 {i + 1} 个用例")
            return {"status": status, "message": message}
    return {"status": "ok", "outputs": outputs}


def main():
    root, check_py, learner_py, out_file, seed = sys.argv[1:6]
    sys.path.insert(0, root)
    import torch
    save = torch.save  # 先记下来：学习者的代码改不了结果怎么写
    cases = load(check_py, "lesson_check").cases(torch.Generator().manual_seed(int(seed)))
    save(run(learner_py, cases), out_file)


if __name__ == "__main__":
    main()
