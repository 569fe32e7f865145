# 期望：不通过
"""两次 fork、setsid，留下一个睡十分钟的孙进程。"""
import os

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "{{TOKEN}}"])
    os._exit(0)


def solve(*args):
    return []
