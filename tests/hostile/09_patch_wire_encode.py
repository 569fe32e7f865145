# 期望：不通过
"""顺着栈帧找到 runner 正在用的 wire 模块，换掉它的 encode，让它交回“passed”。"""
import sys

frame = sys._getframe()
while "wire" not in frame.f_locals:  # runner.main 的局部变量
    frame = frame.f_back
wire = frame.f_locals["wire"]
real = wire.encode
wire.encode = lambda value, limit=0: real({"status": "passed", "message": ""})


def solve(words, positions, past=0):
    return words
