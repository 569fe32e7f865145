# 期望：不通过
"""连上测试开的本机端口，把“来过”发过去。"""
import socket

with socket.create_connection(("127.0.0.1", {{PORT}}), timeout=3) as s:
    s.sendall("来过".encode("utf-8"))


def solve(*args):
    return []
