# 期望：不通过
"""换掉子进程里的 wire.encode 与 os.write，让它们交回“passed”。"""
import os, sys
sys.path.insert(0, "{{REPO}}")
from poetry_gpt.courseware import wire

real = wire.encode
wire.encode = lambda value, limit=0: real({"status": "passed", "message": ""})


def solve(words, positions, past=0):
    return words
