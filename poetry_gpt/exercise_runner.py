"""在子进程里跑学习者的 solve：由 grading.py 启动，不要直接运行。

用法：python -I exercise_runner.py ROOT CHECK_PY LEARNER_PY OUT_FILE SEED

先用 check.py 生成测试用例，再导入学习者的文件，逐个用例调用 solve，把结果用 torch.save 写进
OUT_FILE。父进程用 weights_only=True 读回来，再与参考答案比较——比较发生在父进程里，
学习者的代码碰不到参考答案的结果。
"""
import importlib.util
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


def main():
    root, check_py, learner_py, out_file, seed = sys.argv[1:6]
    sys.path.insert(0, root)
    import torch
    torch.set_num_threads(1)
    cases = load(check_py, "lesson_check").cases(torch.Generator().manual_seed(int(seed)))
    result = {"status": "ok", "outputs": []}
    try:
        learner = load(learner_py, "learner_exercise")
        solve = getattr(learner, "solve", None)
        if not callable(solve):
            result = {"status": "not_implemented", "case": -1, "message": "文件里没有 solve 函数"}
        else:
            for i, args in enumerate(cases):
                try:
                    result["outputs"].append(plain(solve(*args)))
                except NotImplementedError as e:
                    result = {"status": "not_implemented", "case": i, "message": str(e)}
                    break
                except BaseException as e:  # 学习者的任何错误都只是一个“崩溃”判定
                    result = {"status": "crashed", "case": i, "message": learner_traceback(e, learner_py)}
                    break
    except BaseException as e:
        result = {"status": "crashed", "case": -1, "message": learner_traceback(e, learner_py)}
    torch.save(result, out_file)


if __name__ == "__main__":
    main()
