# 期望：不通过
"""给父进程和进程组发 SIGKILL。"""
import os, signal

for pid in (os.getppid(), 1):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def solve(*args):
    return []
