# 期望：不通过
"""自己往答案描述符写“ok”加上乱填的输出，然后 os._exit(0)。"""
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # runner.py 旁边就是 wire.py 的副本
import wire

fd = int(sys.argv[-1])
os.write(fd, wire.encode({"status": "ok", "outputs": [["<pad>"]] * 24}))
os._exit(0)


def solve(*args):
    return []
