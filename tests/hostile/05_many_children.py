# 期望：不通过
"""开 20 个子进程睡着不走。"""
import subprocess

kids = [subprocess.Popen(["sleep", "{{TOKEN}}"]) for _ in range(20)]


def solve(*args):
    return []
