# 期望：崩溃
"""在用户密钥环、会话密钥环与 /proc/keys 里找前一个学习者放的钥匙：消息里报出找到没有。"""
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
found = [ring for ring in (-4, -3, -5) if libc.syscall(250, 10, ring, b"user", b"poet-{{TOKEN}}", 0) > 0]  # KEYCTL_SEARCH
try:
    with open("/proc/keys", encoding="utf-8") as f:
        listed = "poet-{{TOKEN}}" in f.read()
except OSError:
    listed = False
raise RuntimeError(f"找到的钥匙={found} 列出={listed}")


def solve(*args):
    return []
