"""沙箱：先铺好空的 /tmp 再启动 Python，课程包看不见。"""

from courseware.grading import sandbox


def test_sandbox_lays_the_empty_tmp_before_python_and_hides_the_package():
    """仓库或 .venv 在 /tmp 下时，Python 要绑在空的 /tmp 之上，否则沙箱里找不到 Python（退回无沙箱）；
    仓库、课程包、data/ 与 lessons/ 不绑进沙箱，落在绑进去的文件夹里时盖上一块空的内存盘（仓库里的 .venv 再放回来）。"""
    import sys
    from pathlib import Path

    args = sandbox.command(["true"], Path("/tmp/poet-check-x"))
    pairs = list(zip(args, args[1:]))
    tmp = pairs.index(("--tmpfs", "/tmp"))
    python = next(d for d in sandbox._python_dirs() if sys.prefix.startswith(d) or d.startswith(sys.prefix))
    assert tmp < pairs.index(("--ro-bind", python)) < pairs.index(("--tmpfs", "/tmp/poet-check-x"))
    hidden_dirs = list(map(str, sandbox.hidden_dirs()))
    for hidden in hidden_dirs:  # 藏起来的文件夹里只放回 Python 本身（仓库里的 .venv）
        bound = [b for a, b in pairs if a == "--ro-bind" and (b == hidden or b.startswith(hidden + "/"))]
        assert set(bound) <= set(sandbox._python_dirs()) and hidden not in bound, hidden
        covered = any(hidden.startswith(d.rstrip("/") + "/") for d in (*sandbox._python_dirs(), *sandbox.SYSTEM_DIRS))
        under = any(("--tmpfs", h) in pairs and hidden.startswith(h + "/") for h in hidden_dirs)  # 已在一块盘下面
        assert (("--tmpfs", hidden) in pairs) == (covered and not under)


def test_the_grade_notice_names_the_time_limit_in_seconds():
    """./poet grade 开头那一句写出真正的上限（7 秒），不是字面上的“--timeout 秒”。"""
    from courseware.grading.sandbox import protection

    line = protection(1024, 7.0)
    assert "CPU 时间每次检查最多 7 秒（--timeout）" in line and "最多 --timeout 秒" not in line
