# 期望：崩溃
"""沙箱里还剩的几条小路：AF_VSOCK 套接字（网络命名空间管不到它，直通宿主与虚拟机管理程序）、内核的 pty 池
（全机共用，一次检查能拿光）、/etc（bwrap 建成 0700 时，放进来的 passwd 之类 uid 65534 读不了）。消息报出结果。"""
import os
import socket

try:
    socket.socket(40, socket.SOCK_STREAM).close()  # 40：AF_VSOCK
    vsock = "建得了"
except OSError as e:
    vsock = f"建不了（{e.errno}）"
ptys = 0
try:
    while ptys < 300:
        os.openpty()
        ptys += 1
except OSError:
    pass
etc = oct(os.stat("/etc").st_mode & 0o777)
raise RuntimeError(f"vsock={vsock} pty={ptys} etc={etc}")
