# 期望：超时
"""四个子进程一起死循环：CPU 时间（全部进程合计，或每个进程各自）用完就结束，不占着墙上时间。"""
import os

for _ in range(4):
    if os.fork() == 0:
        while True:
            pass
while True:
    pass
