# 期望：崩溃
"""把 /proc/sys 下每个文件原样写回它自己的值（改不了任何设置，只试写不写得进去）、打开 core_pattern 与
sysrq-trigger 写：沙箱里以 uid 65534 运行，一个也写不进去。消息里报出 uid 与写进去的文件。"""
import os

written = []
for folder, _, names in os.walk("/proc/sys"):
    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as f:
                old = f.read()
            fd = os.open(path, os.O_WRONLY)
        except OSError:
            continue
        try:
            os.write(fd, old)
            written.append(path)
        except OSError:
            pass
        finally:
            os.close(fd)
for path in ("/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger"):
    try:
        os.close(os.open(path, os.O_WRONLY))
        written.append(path)
    except OSError:
        pass
raise RuntimeError(f"身份 uid={os.getuid()} euid={os.geteuid()}；写进去的={sorted(set(written))}")


def solve(*args):
    return []
