# 期望：超时
"""忽略 SIGTERM、SIGINT、SIGHUP 再死循环：只能被 SIGKILL 结束。"""
import signal

for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
while True:
    pass
