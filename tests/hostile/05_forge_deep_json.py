# 期望：崩溃
"""伪造一个嵌套十万层的头。"""
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # runner.py 旁边就是 wire.py 的副本
import wire

head = b"[" * 100000 + b"]" * 100000
os.write(int(sys.argv[-1]), wire.MAGIC + len(head).to_bytes(8, "big") + head)
os._exit(0)
