# 期望：崩溃
"""交回 31 MiB 控制字符的“崩溃”消息：批改程序不解码、不转义它，只说文字部分太大。"""
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))
import wire

head = json.dumps({"d": [["status", "crashed"], ["message", "\x01" * ((31 << 20) // 6)]]}).encode()
os.write(int(sys.argv[-1]), wire.MAGIC + len(head).to_bytes(8, "big") + head)
os._exit(0)
