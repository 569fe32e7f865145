# 期望：崩溃
"""往答案描述符写乱码。"""
import os, sys
os.write(int(sys.argv[-1]), os.urandom(4096))
os._exit(0)
