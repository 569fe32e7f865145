"""课件的默认值：检查练习的时间与内存上限（./poet check、./poet grade）、实验的计算线程数。

模型用的默认值在 poetry_gpt/settings.py；这里只放课程机器自己的。和它一样只用标准库：``./poet`` 解析参数时就要用
（``tests/lib/test_settings.py`` 检查选项的默认值出自这里）。
"""

# ---------- 实验（./poet lesson、./poet verify） ----------

EXPERIMENT_THREADS = 1
"""实验用几个计算线程：./poet lesson、./poet verify 与 --record 都是一个。记录是这样录的，换了线程数，第 07、15、17 课
印出的数或图就差在最后一位上（见 courseware/selfcheck/record.py）；两核的笔记本同时在做别的事时，两个线程互相空等，
反倒比一个线程慢好几倍。"""

# ---------- 检查练习（./poet check、./poet grade） ----------

CHECK_TIMEOUT_S = 20.0
"""每份练习的 CPU 时间上限（秒）；墙上时间另有下面的后备上限。"""
REFERENCE_SHARE = 0.25
"""每课参考答案的一次检查最多用掉 CHECK_TIMEOUT_S 的这么多（CPU 时间）：慢几倍的笔记本上、写法慢一些的对的答案
也不会超时。tests/lessons/test_all_lessons.py 检查每一课，bench/check_cpu.py 印出每一课用了多少。"""
WALL_FACTOR, WALL_EXTRA_S = 3, 10
"""墙上时间的后备上限是 CPU 时间上限的 WALL_FACTOR 倍再加 WALL_EXTRA_S 秒（grading.wall_seconds）。"""
CHECK_MEMORY_MB = 2048
"""每次检查的内存上限（MiB）。"""
