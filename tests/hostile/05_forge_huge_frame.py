# 期望：崩溃
"""往答案描述符写 40 MiB：撞上文件大小上限。"""
import os, sys
block = b"x" * (1 << 20)
for _ in range(40):
    os.write(int(sys.argv[-1]), block)
os._exit(0)
