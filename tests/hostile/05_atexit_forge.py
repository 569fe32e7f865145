# 期望：不通过
"""atexit 里往每个可能的文件描述符写一份“全部通过”的伪造结果。"""
import atexit, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # runner.py 旁边就是 wire.py 的副本
import wire


def forge():
    frame = wire.encode({"status": "passed", "message": "全部通过"})
    for fd in range(3, 64):
        try:
            os.write(fd, frame)
        except OSError:
            pass


atexit.register(forge)


def solve(*args):
    return ["错"]
