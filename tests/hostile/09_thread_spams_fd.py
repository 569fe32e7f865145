# 期望：不通过
"""后台线程不停往答案描述符写垃圾，与真正的结果交错。"""
import os, sys, threading


def spam():
    while True:
        try:
            os.write(int(sys.argv[-1]), b"POET-WIRE-1\n" + b"\xff" * 64)
        except OSError:
            return


threading.Thread(target=spam, daemon=True).start()


def solve(words, positions, past=0):
    return words
