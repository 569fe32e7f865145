"""批改学习者的练习：./poet check、./poet grade 与 ./poet verify 共用这里，模块按批改的阶段分：

- 读：classroom.py（./poet grade 的班级文件夹、并行批改全班）、submission.py（一份练习文件）、course.py（check.py 与参考答案）、
  shortcuts.py（源码规则：不许用的捷径）；
- 运行：limited.py（受限的子进程）、sandbox.py（bwrap 沙箱；Machine 记下这次批改用上的隔离）、confine.py（cgroup）、
  runner.py（子进程里运行练习的程序）、wire.py（它交回答案的格式）；
- 判定：reply.py、answers.py、verdict.py；checking.py 的 check_file 把一份练习的读、运行、判定串起来；
- 报告：gradebook.py（通过率、CSV/JSON 报告）。

每份练习的检查分三处：

1. 这里（父进程，可信）：读文件（submission.py：大小上限、NUL、UTF-8、语法），用 ast 查本课 check.py 里的源码规则
   （shortcuts.py：不许用的捷径），用 check.py 生成随机用例，用参考答案 solution.py 算出应有的输出（course.py）；
2. 子进程 runner.py（不可信，从工作文件夹里的副本运行；能用 bwrap 时关在 sandbox.py 的沙箱里，
   沙箱里没有 poetry_gpt 包；另有时间、内存、输出上限，limited.py）：
   先把文件当脚本运行（可见检查），再逐个用例调用学习者的 solve，把结果写回一个只有它拿到的文件描述符；
3. 再回到这里：按 wire.py 的格式严格核对交回的东西（reply.py），每次调用的结果都与参考输出比较（answers.py：整数、字符串
   精确相等；浮点与张量用 allclose），作出判定（checking.py 把这几步串起来）。

学习者的代码只能影响“它交回了什么答案”：它碰不到用例的生成、参考答案的输出和比较，
交回的东西格式不对、太大、太深、类型奇怪，都只是一个“崩溃”或“答案错误”的判定。

每课的 check.py（在可信的父进程里载入，每个进程一次）可以定义的名字，只有这些：

- ``cases(gen)``（必须有）：用 torch.Generator gen 生成用例列表，每个用例是传给 solve 的参数（元组）；
- ``compare(expected, got)``：代替默认的 answers.compare 比较一个用例的参考输出与学习者的输出，
  相同时为 None，否则是中文原因；
- ``explain(message)``：子进程崩溃时，看错误消息补一句说明错在哪里（中文），没什么可补时为 None；
- ``FORBIDDEN = {片段: 原因}``：学习者代码用到的名字（不分大小写）含有这个片段就不通过（见 shortcuts.rule_problem）；
- ``FORBIDDEN_NAMES = {名字: 原因}``：只拦一模一样的名字；
- ``source_problem(code)``：收到学习者代码的 ast.Module（不含底部 if __name__ == "__main__": 那一段的可见检查），查名字以外的源码规则，
  合规时为 None，否则是中文原因；
- ``RAISES = ("ValueError", …)``：某些用例上 solve 应当 raise 的内置异常名（参考答案 raise 时，学习者也要 raise 同一种）；
- ``FRESH_RESULT = True``：返回的张量不许与输入张量共用内存（runner 改写第一次调用的结果再调用第二次，
  由两次的输出查出来）；
- ``TRIPWIRES = ("torch.nn.functional.cross_entropy", "aten::_log_softmax", …)``：差分检查时 runner 把这些 torch
  函数与算子换成绊线（见 runner.install_tripwires），碰上就是“答案错误”——源码规则之外不看拼写的第二道关。
- ``saved_problem(case, saved)``：这一课的 solve 要经 torch.save 存档（第 18 课）。runner 换掉 torch.save，交回每次调用
  存下的字节；批改程序在自己的进程里用 torch.load(..., weights_only=True) 读回来，saved 是读回来的对象的列表
  （读不回来的是 wire.Unsupported）；存档里有该存的东西时为 None，否则是中文原因；
- ``KINDS = {种类: 判断函数(case, expected)}``：课文点到的每一种情形（每个标点、并列、空输入、-100、参数的特殊值……），
  判断一个用例（及参考输出）是不是这一种。批改时不用它：uncovered_kinds（tests/lessons/test_case_kinds.py 逐课调用）
  查任何种子生成的用例都覆盖了每一种，语料里碰巧没有的情形也要由 cases 专门造出来。

check.py 里别的大写名字（拼错的 ``FORBIDEN`` 会被悄悄忽略）由 ./poet verify 报出来（verify.CHECK_SETTINGS）；
课内自用的常量与函数以 _ 开头。
"""

from .answers import judge
from .checking import check_file
from .course import default_seed, expected_errors, fresh_result, lesson_check, reference, tripwires, uncovered_kinds
from .limited import cancel_all, interruptible, probe, sweep_stale_scratch
from .shortcuts import rule_problem
from .submission import SYMLINK, read_at, read_inside, read_source, through_symlink
from .verdict import MIN_MEMORY_MB, VERDICTS, Limits, Verdict, wall_seconds

__all__ = [
    "MIN_MEMORY_MB",
    "SYMLINK",
    "VERDICTS",
    "Limits",
    "Verdict",
    "cancel_all",
    "check_file",
    "default_seed",
    "expected_errors",
    "fresh_result",
    "interruptible",
    "judge",
    "lesson_check",
    "probe",
    "read_at",
    "read_inside",
    "read_source",
    "reference",
    "rule_problem",
    "sweep_stale_scratch",
    "through_symlink",
    "tripwires",
    "uncovered_kinds",
    "wall_seconds",
]
