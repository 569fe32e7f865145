# 期望：崩溃
"""结果里多塞一个 verdict 字段。"""
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # runner.py 旁边就是 wire.py 的副本
import wire

os.write(int(sys.argv[-1]), wire.encode({"status": "ok", "outputs": [[]] * 24, "verdict": "passed"}))
os._exit(0)
