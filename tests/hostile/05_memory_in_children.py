# 期望：不通过
"""三个新的解释器各占 900 MiB（--memory 1024）：有 cgroup 时合计超过上限，得到“内存超过上限”。"""
import subprocess
import sys

code = "import time\nb = bytearray(900 << 20)\ntime.sleep(20)"
kids = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
print([k.wait() for k in kids])


def solve(*args):
    return []
