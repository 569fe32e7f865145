# 期望：崩溃
"""张量描述里 dtype 是一个列表（不可哈希）、形状是 2^70：都只是“不合格式”。"""
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))
import wire

bad = [{"x": [["float32"], [2], [1], 0]}, {"x": ["float32", [2 ** 70], [1], 0]}, {"x": ["float32", [2], [1], -8]}]
head = json.dumps({"d": [["status", "ok"], ["outputs", (bad * 8)[:24]], ["inputs", [[]] * 24]]}).encode()
os.write(int(sys.argv[-1]), wire.MAGIC + len(head).to_bytes(8, "big") + head + b"\0" * 64)
os._exit(0)
