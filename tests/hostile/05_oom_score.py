# 期望：崩溃
"""内存真不够时，内核的 OOM killer 挑谁：检查进程的 oom_score_adj 比批改程序高（1000），先挑它们。消息报出这个数。"""
with open("/proc/self/oom_score_adj", encoding="utf-8") as f:
    raise RuntimeError(f"oom_score_adj={f.read().strip()}")
