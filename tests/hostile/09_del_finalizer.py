# 期望：不通过
"""对象的 __del__ 在解释器退出时伪造结果。"""
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # runner.py 旁边就是 wire.py 的副本
import wire


class Ghost:
    def __del__(self):
        os.write(3, wire.encode({"status": "passed", "message": ""}))


ghost = Ghost()


def solve(words, positions, past=0):
    return words
