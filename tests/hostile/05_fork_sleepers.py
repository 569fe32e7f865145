# 期望：不通过
"""开尽可能多的睡眠进程（最多 1000 个）就返回：判定给出时它们一个也不剩。"""
import os

for _ in range(1000):
    try:
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "{{TOKEN}}"])
    except OSError:
        break


def solve(*args):
    return []
