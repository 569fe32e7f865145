# 期望：崩溃
"""拿尽 uid 的内核配额：inotify 实例、排队的实时信号。以 root 批改时这些都记在宿主的 root 头上——拿得多了，
老师那边的 inotify_init、pthread_kill 就失败。错误消息报出各拿到了多少（测试检查它们都被压得很低）。"""
import ctypes
import signal
import threading

libc = ctypes.CDLL(None, use_errno=True)
instances = 0
while instances < 200 and libc.inotify_init() >= 0:
    instances += 1
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
queued = 0
try:
    while queued < 5000:
        signal.pthread_kill(threading.get_ident(), signal.SIGRTMIN)  # tgkill：队列满了是 EAGAIN
        queued += 1
except OSError:
    pass
raise RuntimeError(f"拿到的 inotify 实例={instances} 排队的实时信号={queued}")
