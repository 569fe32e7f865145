# 期望：答案错误
"""原地 += 改掉传进来的 words，再在导入时改写 runner：每次调用之后把用例换回调用之前的副本，让“输入没变”的检查
看不出来（换掉 runner 里在每次调用之后都会调用的函数）。runner 每次调用都从用例的字节新建参数，调用一返回
就拍快照（取下的函数，不经模块里的名字），父进程对照它发出的用例：改了输入就看得出来。"""
import copy
import sys

if __name__ != "__main__":
    frame = sys._getframe()
    while frame is not None and "cases" not in frame.f_locals and "setup" not in frame.f_locals:
        frame = frame.f_back
    runner = sys.modules.get("__main__")
    if frame is not None and runner is not None:
        cases = frame.f_locals.get("cases") or frame.f_locals["setup"]["cases"]
        saved = copy.deepcopy(list(cases))

        def restore(*args, **kwargs):
            cases[:] = copy.deepcopy(saved)
            return None

        for name in ("shared_argument", "_overwrite"):  # 调用之后被调用的帮手
            if hasattr(runner, name):
                setattr(runner, name, restore)
        if hasattr(runner, "_call"):
            real = runner._call

            def call(*args, **kwargs):
                out = real(*args, **kwargs)
                restore()
                return out

            runner._call = call


def solve(words, positions, past):
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError("太长")
    words += positions[past : past + T]
    return words
