# 期望：崩溃
"""不停地要内存。"""
blocks = []
while True:
    blocks.append(bytearray(64 << 20))
