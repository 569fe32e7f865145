# 期望：不通过
"""三个新的解释器各占 900 MiB（--memory 1024）：有 cgroup 时合计超过上限，得到“内存超过上限”。
每个子进程拿到内存后说一声：三个都说过（或被杀掉）时它们确实同时占着内存，不必再睡满 20 秒。"""
import subprocess
import sys

code = "import sys, time\nb = bytearray(900 << 20)\nsys.stdout.write('x')\nsys.stdout.flush()\ntime.sleep(20)"
kids = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE) for _ in range(3)]
held = [k.stdout.read(1) for k in kids]  # 被杀掉的读到 b""
for k in kids:
    k.kill()
print(held, [k.wait() for k in kids])


def solve(*args):
    return []
