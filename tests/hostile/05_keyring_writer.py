# 期望：未完成
"""往用户密钥环与会话密钥环里各放一把钥匙，留给后面的学习者读（每次检查一个新的用户命名空间，读不到）。"""
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for ring in (-4, -3):  # KEY_SPEC_USER_KEYRING、KEY_SPEC_SESSION_KEYRING
    libc.syscall(248, b"user", b"poet-{{TOKEN}}", b"secret", 6, ring)


def solve(*args):
    raise NotImplementedError("钥匙放好了")
