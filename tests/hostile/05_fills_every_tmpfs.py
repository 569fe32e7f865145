# 期望：崩溃
"""往每一处可能可写的地方（/、/dev、/dev/shm、/tmp、工作文件夹、/run、/var/tmp）各写 64 个 16 MiB 的文件：
每块可写的内存盘都有大小上限，/ 与 /dev 只读；合计写进去的远小于 --memory。"""
import os

total = 0
for where in ("/", "/dev", "/dev/shm", "/tmp", os.getcwd(), "/run", "/var/tmp"):
    for i in range(64):
        try:
            with open(os.path.join(where, f"fill{i}"), "wb") as f:
                f.write(b"\1" * (16 << 20))
            total += 16
        except (OSError, MemoryError):
            break
raise RuntimeError(f"合计写进去 {total} MiB")


def solve(*args):
    return []
