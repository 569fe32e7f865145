# 期望：崩溃
"""往会话密钥环里放三百把钥匙：钥匙的配额记在内核眼里的用户头上（以普通用户批改时就是老师，每人 200 把），
放满了老师自己的 add_key 就失败。消息里报出放进去几把、失败的 errno。"""
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
added, error = 0, 0
for i in range(300):
    name = f"poet-quota-{{TOKEN}}-{i}".encode()
    if libc.syscall(248, b"user", name, b"x" * 16, 16, -3) > 0:  # add_key 到 KEY_SPEC_SESSION_KEYRING
        added += 1
    else:
        error = ctypes.get_errno()
raise RuntimeError(f"放进去的钥匙={added} errno={error}")


def solve(*args):
    return []
