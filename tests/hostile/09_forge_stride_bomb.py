# 期望：崩溃
"""伪造一个形状 [10^6, 10^6]、步长 0 的张量：逻辑上 4 TB。"""
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # runner.py 旁边就是 wire.py 的副本
import wire

head = json.dumps({"d": [["status", "ok"], ["outputs", [{"x": ["float32", [10**6, 10**6], [0, 0], 0]}] * 24]]}).encode()
os.write(int(sys.argv[-1]), wire.MAGIC + len(head).to_bytes(8, "big") + head + b"\0" * 4)
os._exit(0)
