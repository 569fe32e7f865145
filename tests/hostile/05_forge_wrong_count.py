# 期望：崩溃
"""只交回一个用例的输出。"""
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # runner.py 旁边就是 wire.py 的副本
import wire

os.write(int(sys.argv[-1]), wire.encode({"status": "ok", "outputs": [["<pad>"]]}))
os._exit(0)
