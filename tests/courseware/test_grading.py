"""批改一份练习（check_file）：源码规则不靠可见检查、学习者的错误用中文指出行号、换进来的符号链接不跟、
批改程序自己的开销有上界。"""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from textwrap import indent

import pytest
from conftest import ROOT

from courseware.catalogue import BY_NUMBER
from courseware.grading import SYMLINK, Limits, check_file, read_inside, read_source, rule_problem

VISIBLE = """

if __name__ == "__main__":
    x = torch.zeros(2, 3, 4)
    p = torch.arange(12.0).view(3, 4)
    y = solve(x, p)
    assert y.shape == (2, 3, 4)
    assert torch.equal(y[0], p), "字向量全为 0 时，结果应正好等于位置表"
    print("本课补全练习通过。")
"""


def exercise(body: str, top: str = "") -> str:
    """一份第 09 课练习：top 放在 import torch 之后，body 是 solve 的函数体。"""
    return f"import torch\n{top}\n\ndef solve(words, positions, past=0):\n{indent(body, '    ')}\n{VISIBLE}"


ROWS = "positions[past:past + words.shape[1]]"
GUARD = "if past + words.shape[1] > positions.shape[0]:\n    raise ValueError('位置表不够长')\n"  # 太长的用例要 raise
RIGHT = exercise(GUARD + f"return words + {ROWS}")


def test_a_symlink_swapped_in_after_the_check_is_not_followed(tmp_path):
    """检查时还是普通文件、读时已换成链接（竞争）：逐级 O_NOFOLLOW 打开，仍然不跟随。"""
    (tmp_path / "secret.txt").write_text("老师的文件", encoding="utf-8")
    learner = tmp_path / "ada"
    (learner / "lessons" / "09").mkdir(parents=True)
    (learner / "09.py").write_text(RIGHT, encoding="utf-8")
    assert read_inside(learner, Path("09.py")) == RIGHT.encode("utf-8")
    (learner / "09.py").unlink()
    (learner / "09.py").symlink_to(tmp_path / "secret.txt")
    assert read_inside(learner, Path("09.py")) == SYMLINK
    (learner / "lessons" / "09").rmdir()
    (learner / "lessons" / "09").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "my_exercise.py").write_text(RIGHT, encoding="utf-8")
    assert read_inside(learner, Path("lessons/09/my_exercise.py")) == SYMLINK
    assert read_inside(tmp_path / "ada", Path("no.py")).startswith("无法读取")
    # ./poet check 检查学习者自己指定的文件，照常跟随链接
    assert read_source(learner / "09.py") == "老师的文件".encode()


@pytest.mark.parametrize(
    "number, body, words",
    [
        (1, "p = torch.softmax(logits, 0)\nreturn [(chars[0], p[0].item())]", "softmax"),
        (13, "return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps)", "layer_norm"),
        (15, "return F.cross_entropy(logits[mask], targets[mask])", "cross_entropy"),
        (
            24,
            "from poetry_gpt.prosody import tail_fault\nreturn [(k + 1, f) for k, t in enumerate(tones) if (f := tail_fault(t))]",
            "poetry_gpt",
        ),
        (26, "import torch.nn as nn\nreturn budget, 0", "nn"),
    ],
)
def test_source_rules_hold_without_the_visible_checks(number, body, words, tmp_path, monkeypatch):
    """删掉底部的可见检查再用本课说不要用的捷径：批改程序自己查源码（运行之前），判“答案错误”并说明原因。"""
    from courseware.grading import checking

    def never(*args, **kwargs):  # 运行之前就判：练习根本不该被运行（不靠量用时来证明）
        raise AssertionError("源码规则没拦住，练习被运行了")

    monkeypatch.setattr(checking, "_run_exercise", never)
    starter = (BY_NUMBER[number].folder / "starter.py").read_text(encoding="utf-8")
    head = starter[: starter.index('if __name__ == "__main__":')]
    start = head.index("    raise NotImplementedError(")
    text = head[:start] + indent(body, "    ") + head[head.index("\n", start) :]
    text = text.replace("import torch\n", "import torch\nfrom torch.nn import functional as F\n", 1)
    path = tmp_path / f"{number:02d}.py"
    path.write_text(text, encoding="utf-8")
    verdict = check_file(BY_NUMBER[number], path, Limits(timeout=60))
    assert verdict.kind == "wrong" and f"用了 {words}" in verdict.message, verdict.message
    assert verdict.cpu_seconds == 0  # 没运行学习者的代码：时间上限一秒也没算


def test_learner_errors_name_the_line_in_chinese(tmp_path):
    """可见检查没通过、solve 崩溃：消息指出学习者文件的第几行、在哪个函数里，不印英文的 Python traceback。"""
    cases = {
        "wrong": (exercise(f"return words + {ROWS} + 1"), "顶层代码", "assert torch.equal(y[0], p)"),
        "crashed": (exercise("return words @ positions"), "在 solve 里", "return words @ positions"),
    }
    for kind, (text, where, source) in cases.items():
        path = tmp_path / f"{kind}.py"
        path.write_text(text, encoding="utf-8")
        verdict = check_file(BY_NUMBER[9], path, Limits(timeout=60))
        assert verdict.kind == kind, verdict.message
        assert f"行（{where}）：{source}" in verdict.message, verdict.message
        assert "Traceback" not in verdict.message and 'File "' not in verdict.message, verdict.message


def test_source_rules_ignore_comments_strings_and_the_given_checks():
    """注释、文档字符串、print 与 assert、内置异常里给人看的文字不算；底部的可见检查（第 12 课里用了 F.gelu、
    nn.Linear）不算；学习者自己定义的同名函数不算；getattr 里直接写出的名字算。"""
    twelve, one = BY_NUMBER[12], BY_NUMBER[1]
    assert rule_problem(twelve, (twelve.folder / "solution.py").read_text(encoding="utf-8")) is None
    quiet = (
        'import torch\n# 不用 gelu\ndef solve(x):\n    """不调用 F.gelu。"""\n    print("不用 gelu", f"{x} gelu")\n'
        '    assert x is not None, "gelu"\n    if x is None:\n        raise ValueError("gelu")\n    return x\n'
    )
    assert rule_problem(twelve, quiet) is None
    assert rule_problem(one, "def softmax(x):\n    return x\n\ndef solve(l, c, k):\n    return softmax(l)\n") is None
    assert "softmax" in rule_problem(
        one, "import torch\ndef solve(l, c, k):\n    return getattr(torch, 'softmax')(l, 0)\n"
    )
    assert "softmax" in rule_problem(one, "from torch import *\ndef solve(l, c, k):\n    return softmax(l, 0)\n")
    eight = BY_NUMBER[8]
    assert "weight[" in rule_problem(eight, "def solve(ids, weight):\n    return weight[ids]\n")


OLD_VISIBLE_CHECK = """
if __name__ == "__main__":
    import inspect

    body = inspect.getsource(solve).split('\"\"\"')[-1]  # 上个月的起始文件：在源码文本里找字
    assert "softmax" not in body, "请不要调用 softmax 函数"
    print("本课补全练习通过。")
"""


def test_an_older_visible_check_is_not_judged_but_the_code_that_runs_is():
    """旧版起始文件底部的可见检查（在文本里找 "softmax"、用 inspect）不算学习者的代码：差分检查把文件当模块导入，
    那一段不运行。学习者加在那一段里的语句也一样。文件别处可能把 __name__ 改成 "__main__"（写出 __name__、
    from … import *）时，那一段会在导入时运行，整个文件照查；那一段的 else 也照查。"""
    one = BY_NUMBER[1]
    solution = (one.folder / "solution.py").read_text(encoding="utf-8")
    mine = solution[: solution.index('if __name__ == "__main__":')].rstrip() + "\n"
    assert rule_problem(one, mine + OLD_VISIBLE_CHECK) is None
    assert rule_problem(one, mine + OLD_VISIBLE_CHECK + "    torch.softmax(torch.zeros(2), 0)\n") is None
    renamed = "__name__ = '__main__'\n" + mine + OLD_VISIBLE_CHECK
    assert rule_problem(one, renamed).startswith("第 "), rule_problem(one, renamed)
    for top in ("globals()['__na' + 'me__'] = '__main__'\n", "from os.path import *\n"):
        assert rule_problem(one, top + mine + OLD_VISIBLE_CHECK) is not None, top
    otherwise = mine + OLD_VISIBLE_CHECK + "else:\n    solve = lambda l, c, k: torch.softmax(l, 0)\n"
    assert "softmax" in rule_problem(one, otherwise)


def test_only_the_builtins_are_reflection_not_attributes_of_the_same_name():
    """re.compile、model.eval() 是别的函数；直接写出的内置 compile、eval、exec、vars、dir 才是绕过规则的路。"""
    fifteen = BY_NUMBER[15]
    head = "import re\nimport torch\n"
    assert rule_problem(fifteen, head + "PUNCT = re.compile('[，。]')\ndef solve(l, t, m):\n    return l\n") is None
    assert rule_problem(fifteen, head + "def solve(l, t, m):\n    torch.nn.Linear(2, 2).eval()\n    return l\n") is None
    for call in ("compile('x', 'f', 'exec')", "eval('1')", "exec('1')", "vars(torch)", "dir(torch)"):
        problem = rule_problem(fifteen, head + f"def solve(l, t, m):\n    {call}\n    return l\n")
        assert problem is not None and problem.startswith(f"第 4 行用了 {call[: call.index('(')]}"), (call, problem)
    own = "def compile(x):\n    return x\n\ndef solve(l, t, m):\n    return compile(l)\n"
    assert rule_problem(fifteen, own) is None  # 自己定义的 compile 不是内置的
    assert rule_problem(fifteen, "import builtins\ndef solve(l, t, m):\n    return builtins.eval('l')\n") is not None


SHORTCUT_ROUTES = {
    "f-string": "import torch.nn.functional as F\ng = getattr\ndef solve(l, t, m):\n    return g(F, f'cross_entropy')(l, t)\n",
    "f-string 拼接": "import torch.nn.functional as F\ndef solve(l, t, m):\n    return getattr(F, f\"cross_{''}entropy\")(l, t)\n",
    "match 类模式": "import torch.nn.functional as F\nmatch F:\n    case object(cross_entropy=ce):\n        pass\n"
    "def solve(l, t, m):\n    return ce(l, t)\n",
    "vars": "import torch.nn.functional as F\ndef solve(l, t, m):\n    return vars(F)['cross' + '_entropy'](l, t)\n",
    "**vars": "import torch.nn.functional as F\ndef pick(*, cross_entropy, **rest):\n    return cross_entropy\n"
    "def solve(l, t, m):\n    return pick(**vars(F))(l, t)\n",
    "globals": "import torch.nn.functional as F\nglobals().update(F.__dict__)\n",
    "getattr 别名": "import torch.nn.functional as F\ng = getattr\ndef solve(l, t, m):\n    return g(F, 'x')(l, t)\n",
    "getattr *": "import torch.nn.functional as F\ndef solve(l, t, m):\n    return getattr(F, *['x'])(l, t)\n",
    "partial": "import functools\nimport torch.nn.functional as F\nce = functools.partial(getattr, F)('x')\n",
    "__getattribute__": "import torch.nn.functional as F\ndef solve(l, t, m):\n    return F.__getattribute__('x')(l, t)\n",
    "bytes": "import torch.nn.functional as F\ndef solve(l, t, m):\n    return F.__dict__[b'cross_entropy'.decode()](l, t)\n",
    "format": "import torch.nn.functional as F\nce = '{0.cross_entropy}'\n",
    "gc": "import gc\ndef solve(l, t, m):\n    return gc.get_objects()\n",
    "栈帧": "import sys\ndef solve(l, t, m):\n    return sys._getframe().f_back\n",
}


@pytest.mark.parametrize("route", SHORTCUT_ROUTES)
def test_source_rules_read_every_route_to_a_name(route):
    """第 15 课：写在 f-string、match 的类模式、字符串常量里的名字，与不写出名字就拿到函数的写法（vars、globals、
    getattr 的别名与 * 参数、functools.partial(getattr, …)、__getattribute__、gc、栈帧），都是“答案错误”的原因。"""
    problem = rule_problem(BY_NUMBER[15], SHORTCUT_ROUTES[route])
    assert problem is not None and problem.startswith("第 "), (route, problem)


GRADER_COST = """
import json, resource, sys
from pathlib import Path
from courseware.catalogue import BY_NUMBER
from courseware.grading import Limits, check_file
lesson = BY_NUMBER[5]
check_file(lesson, lesson.folder / "solution.py", Limits(timeout=60))  # 热身：导入 torch、算参考答案
out = {}
for name in sys.argv[1:]:
    before = resource.getrusage(resource.RUSAGE_SELF)
    verdict = check_file(lesson, Path(name), Limits(timeout=60))
    after = resource.getrusage(resource.RUSAGE_SELF)
    out[Path(name).stem] = {"kind": verdict.kind, "chars": len(verdict.message),
                            "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                            "grown_mb": (after.ru_maxrss - before.ru_maxrss) / 1024}
print(json.dumps(out))
"""
BIG_ANSWER = (
    "import torch\n\n\ndef solve(*args):\n    return torch.zeros(256 * 1024 - 64)  # 24 个用例合计正好不到 24 MiB\n"
)
BIG_MESSAGE = """import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))
import wire
head = json.dumps({"d": [["status", "crashed"], ["message", TEXT]]}).encode()
os.write(int(sys.argv[-1]), wire.MAGIC + len(head).to_bytes(8, "big") + head)
os._exit(0)
"""


def test_the_graders_own_cost_is_bounded(tmp_path):
    """学习者交回最大的合法答案（近 24 MiB 的张量）、4 MiB 以内最长的消息、31 MiB 的伪造消息：批改程序自己
    花的 CPU 与多占的内存都很小，与学习者交了多少无关（实测约 0.06–0.09 秒、多占 11–72 MiB）。"""
    import subprocess
    import sys

    files = {
        "answer": BIG_ANSWER,  # 头部 4 MiB 之内最长的消息，与 31 MiB 的
        "message": BIG_MESSAGE.replace("TEXT", '"\\x01\\u202e" * ((4 << 20) // 13)'),
        "huge_message": BIG_MESSAGE.replace("TEXT", '"\\x01" * ((31 << 20) // 6)'),
    }
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", GRADER_COST, *(str(tmp_path / f"{n}.py") for n in files)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    cost = json.loads(run.stdout.strip().splitlines()[-1])
    assert cost["answer"]["kind"] == "wrong" and cost["message"]["kind"] == cost["huge_message"]["kind"] == "crashed"
    assert cost["message"]["chars"] < 4100  # 4 MiB 的控制字符：截短、转义后只显示这么多
    assert cost["huge_message"]["chars"] < 200  # 31 MiB 的：不解码，只说文字部分太大
    for name, c in cost.items():
        assert c["cpu"] < 1.0 and c["grown_mb"] < 200, (name, c)


def test_a_float_mismatch_names_the_position_that_differs_most():
    """预览只显示开头几个数：浮点张量不一致时，消息说出差得最多的位置与两边的值，以及有几个位置超出容差。"""
    import torch

    from courseware.grading.answers import tensor_difference

    want = torch.zeros(3, 4)
    got = want.clone()
    got[2, 1], got[1, 0] = 0.5, 0.1
    assert (
        tensor_difference(want, got)
        == "最大相差 0.5，在 [2, 1]（下标从 0 数）：应为 0.0、实际是 0.5；共 2 个位置超出容差"
    )
    line = torch.tensor([0.0, 0.0, 0.0, 0.3])
    assert (
        tensor_difference(torch.zeros(4), line)
        == "最大相差 0.3，在 [3]（下标从 0 数）：应为 0.0、实际是 0.3；共 1 个位置超出容差"
    )


def test_expected_and_actual_show_the_digits_that_tell_them_apart():
    """应为与实际并排时两边一样多位小数，多到看得出不同（1.813 对 1.810，1.09420 对 1.09421），不印 float32 的噪声
    （float32 张量 .tolist() 得来的 0.4 写作 0.4）；0 维的结果说它是一个数；预览从第一个不同的位置起。"""
    import torch

    from courseware.grading.answers import compare, number_pair, previews, tensor_difference

    assert number_pair(1.813, 1.81) == ("1.813", "1.810")
    assert number_pair(1.094, 1.09401) == ("1.09400", "1.09401")
    assert number_pair(5707.0, 5706.0) == ("5707", "5706")
    float32 = torch.tensor([0.4, 1 / 3])
    assert number_pair(*float32.tolist(), most=9) == ("0.4000", "0.3333")
    assert number_pair(float32[1].item(), float32.double()[1].item() + 1e-12, most=9)[0] == "0.333333343"
    want, got = torch.tensor([[1.094]]), torch.tensor([[1.09401]])
    assert tensor_difference(want, got).endswith("应为 1.09400、实际是 1.09401；共 0 个位置超出容差")
    assert tensor_difference(torch.tensor(5707), torch.tensor(5706)) == (
        "结果是一个数（0 维张量，标量）：应为 5707、实际是 5706"
    )
    noisy = float(torch.tensor(0.4))
    assert compare([0.1, 0.2], [0.1, noisy]) == "结果[1]应约为 0.2，实际是 0.4（下标从 0 数）"
    assert compare(torch.zeros(2), [noisy, 0.5]) == "结果应是张量，实际是 list"
    assert previews(torch.zeros(2), [noisy, 0.5]) == ("张量[2] [0, 0]", "[0.4, 0.5]")
    mask = torch.zeros(6672, dtype=torch.bool)
    wrong = mask.clone()
    wrong[1234] = True
    shown_want, shown_got = previews(mask, wrong)
    assert shown_want.startswith("张量[6672] 从 [1234] 起 [False,")
    assert shown_got.startswith("张量[6672] 从 [1234] 起 [True,")
    assert previews(torch.tensor(5707), torch.tensor(5706)) == ("标量张量（0 维）5707", "标量张量（0 维）5706")


def test_positions_are_written_one_way_in_every_message():
    """位置一律写成从 0 数的下标（[2]、结果[9]）并注明；“第 N 个用例”是从 1 数的序数。第 05 课的第十项是 结果[9]。"""
    import torch

    from courseware.grading.answers import compare, judge, tensor_difference

    want = torch.tensor([0.0, 1.0, float("-inf"), 3.0])
    got = torch.tensor([0.0, 1.0, 777.0, 3.0])
    assert tensor_difference(want, got) == "1 个位置不同（下标从 0 数）：[2] 应为 -inf、实际是 777.0"
    ids = torch.tensor([[1, 2], [3, 4]])
    assert tensor_difference(ids, ids.flip(0)) == (
        "4 个位置不同（下标从 0 数）：[0, 0] 应为 1、实际是 3；[0, 1] 应为 2、实际是 4；"
        "[1, 0] 应为 3、实际是 1；[1, 1] 应为 4、实际是 2"
    )
    table = [f"字{i}" for i in range(12)]
    wrong = table[:9] + ["错"] + table[10:]
    assert compare(table, wrong) == "结果[9]应为 '字9'，实际是 '错'（下标从 0 数）"
    assert compare([[1, 2], [3, 4]], [[1, 2], [3, 5]]) == "结果[1][1]应为 4，实际是 5（下标从 0 数）"
    cases = [(["春风"], 1, ["<pad>"])] * 3
    result = {
        "status": "ok",
        "calls": [(out, out, [[args, None, None]]) for out, args in zip([table, table, wrong], cases)],
    }
    verdict, message = judge(BY_NUMBER[5], cases, [table] * 3, result)
    assert verdict == "wrong" and message.startswith("第 3/3 个用例不对：结果[9]应为"), message
    for text in (message, tensor_difference(want, got)):
        assert not re.search(r"第 \d+ [个项](?!用例)", text.replace("第 3/3 个用例", "")), text


def test_a_tuple_is_asked_for_as_a_tuple():
    from courseware.grading.answers import compare

    assert compare(([1], [True]), {"ids": [1]}) == "结果应是元组（tuple），实际是 dict"
    assert compare([1, 2], "12") == "结果应是列表，实际是 str"


def test_a_torch_error_reaches_the_learner_after_a_chinese_sentence(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(exercise(GUARD + "return words + positions"), encoding="utf-8")  # 位置表没有切到 T 行
    verdict = check_file(BY_NUMBER[9], path, Limits(timeout=60))
    first, *rest = verdict.message.splitlines()
    assert verdict.kind == "crashed" and "两个张量的形状对不上" in first, verdict.message
    assert "The size of tensor a" in rest[-1], verdict.message


def test_only_utf8_source_is_accepted():
    """声明了 UTF-8 以外编码的文件不运行（utf-7 里，UTF-8 读来是注释的一行可以是代码）；声明 UTF-8 的照常。"""
    from courseware.grading.submission import file_problem

    code = b"import torch\n\ndef solve(x):\n    return x\n"
    for cookie in (b"# -*- coding: utf-7 -*-\n", b"#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n"):
        problem = file_problem(cookie + code)
        assert problem is not None and "只接受 UTF-8" in problem, problem
    for cookie in (b"# -*- coding: utf-8 -*-\n", b"# coding=UTF8\n", b"# coding: utf_8\n", b""):
        assert file_problem(cookie + code) is None


def test_the_graders_own_compile_is_quiet_and_bounded(capfd, tmp_path, monkeypatch):
    """批改程序自己编译学习者的文件：编译器的警告一条也不印（老师当前文件夹里有同名文件也不去引它）；大文件在受限的
    子进程里编译，语法错误照样报出行号，太长太复杂的只花批改程序几十毫秒、子进程至多 COMPILE_CPU_S 秒 CPU。"""
    import time

    from courseware.grading.submission import COMPILE_CPU_S, QUICK_BYTES, file_problem

    monkeypatch.chdir(tmp_path)
    (tmp_path / "<练习文件>").write_text("老师自己的文件\n" * 5, encoding="utf-8")
    small = b"assert (1, 2)\nx = 1 is 1\n" * 100
    assert file_problem(small) is None
    medium = b"assert (1, 2)\n" * (QUICK_BYTES // 14 + 100)
    assert file_problem(medium) is None
    assert file_problem(medium + b"def f(:\n") == "第 4782 行：语法错误（invalid syntax）\ndef f(:"
    flood = b"assert (1, 2)\n" * ((1 << 20) // 14 - 10)
    cpu, wall = time.process_time(), time.monotonic()
    problem = file_problem(flood)
    assert problem is not None and "太长或太复杂" in problem, problem
    assert time.process_time() - cpu < 1 and time.monotonic() - wall < 3 * COMPILE_CPU_S + 10 + 5
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == "", captured.err[:500]


def test_every_tripwire_names_something_in_this_torch():
    """每课 TRIPWIRES 里的名字在这个版本的 torch 里都找得到：runner 找不到的绊线会被跳过，这里先说出来。"""
    import torch

    from courseware.catalogue import CATALOGUE
    from courseware.grading import runner, tripwires

    named = [(lesson.code, name) for lesson in CATALOGUE if lesson.available for name in tripwires(lesson)]
    assert {code for code, _ in named} == {"01", "13", "15", "16", "17"}
    missing = [
        (code, name)
        for code, name in named
        if not (hasattr(torch.ops.aten, name[6:]) if name.startswith("aten::") else runner._resolve(name))
    ]
    assert missing == []


def test_capabilities_not_just_spellings():
    """第 01、13、16 课拦的是能力：Categorical 的 probs、group_norm、torch._fused_adamw_。"""
    assert "distributions" in rule_problem(
        BY_NUMBER[1],
        "from torch.distributions import Categorical\ndef solve(l, c, k):\n    return Categorical(logits=l).probs\n",
    )
    assert "group_norm" in rule_problem(
        BY_NUMBER[13], "import torch\ndef solve(x, w, b, e):\n    return torch.group_norm(x, 1)\n"
    )
    assert "adam" in rule_problem(BY_NUMBER[16], "import torch\ndef solve(*a):\n    return torch._fused_adamw_(*a)\n")


_TRIPWIRE_ROUTES = {
    "另一个重载：_softmax.out": (
        1,
        "x = torch.randn(5)\ntorch._softmax(x, 0, False, out=torch.empty(5))",
        "aten::_softmax",
    ),
    "学习率是张量：_fused_adamw_.tensor_lr": (
        16,
        "p, g, m, v = ([torch.randn(3)] for _ in range(4))\n"
        "torch.ops.aten._fused_adamw_.tensor_lr(p, g, m, v, [], [torch.tensor(1.0)], lr=torch.tensor(0.1), "
        "beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)",
        "aten::_fused_adamw_",
    ),
    "类上的原函数：torch._C._VariableFunctions.rms_norm": (
        13,
        "torch._C._VariableFunctions.rms_norm(torch.randn(2, 4, requires_grad=True), [4])",
        "aten::rms_norm",
    ),
    "vmap 里的 rms_norm": (
        13,
        "torch.vmap(lambda x: torch.ops.aten.rms_norm(x, [4]))(torch.randn(3, 4))",
        "aten::rms_norm",
    ),
    "reload 出来的新 clip_grad_norm_": (
        17,
        "import importlib, sys\nm = importlib.reload(sys.modules['torch.nn.utils.clip_grad'])\n"
        "p = torch.nn.Parameter(torch.ones(3))\np.grad = torch.ones(3)\nm.clip_grad_norm_([p], 0.1)",
        "torch.nn.utils.clip_grad_norm_",
    ),
    "spec_from_file_location 另载一份": (
        17,
        "import importlib.util, os\npath = os.path.join(os.path.dirname(torch.nn.utils.__file__), 'clip_grad.py')\n"
        "spec = importlib.util.spec_from_file_location('fresh', path)\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))",
        "torch.nn.utils.clip_grad_norm_",
    ),
    "经文件夹描述符读源码": (
        17,
        "import os\nd = os.open(os.path.dirname(torch.nn.utils.__file__), os.O_RDONLY)\n"
        "os.read(os.open('clip_grad.py', os.O_RDONLY, dir_fd=d), 100)",
        "torch.nn.utils.clip_grad_norm_",
    ),
    "reload adam 再 reload adamw": (
        16,
        "import importlib, sys\nimportlib.reload(sys.modules['torch.optim.adam'])\n"
        "m = importlib.reload(sys.modules['torch.optim.adamw'])\n"
        "p = torch.nn.Parameter(torch.ones(3))\np.grad = torch.ones(3)\nm.AdamW([p]).step()",
        "torch.optim.Adam",
    ),
    "types.FunctionType 套在原函数的代码上": (
        16,
        "import types\nadam = [c for c in torch.optim.Optimizer.__subclasses__() if c.__name__ == 'Adam'][0]\n"
        "types.FunctionType(adam.step.__code__, {}, 'step', None, adam.step.__closure__)(None)",
        "torch.optim.Adam",
    ),
    "没碰绊线的层归一化": (
        13,
        "x = torch.randn(2, 4, requires_grad=True)\n"
        "((x - x.mean(-1, keepdim=True)) / (x.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()).sum().backward()",
        None,
    ),
}


@pytest.mark.parametrize("route", list(_TRIPWIRE_ROUTES))
def test_tripwires_hold_by_op_by_code_and_against_fresh_copies(route, tmp_path):
    """runner 换上本课的绊线之后（不经源码规则，直接在换了绊线的进程里运行）：算子的别的重载、类上的原函数、
    vmap、reload 或另载出来的新函数、读绊线所在的源码、拿原函数的代码新建函数，都碰上绊线、进程被 SIGKILL；
    没碰绊线的代码照常跑完。"""
    number, code, name = _TRIPWIRE_ROUTES[route]
    from courseware.grading import tripwires

    attack = tmp_path / "attack.py"
    attack.write_text("import torch\n" + code + "\nprint('跑完了')\n", encoding="utf-8")
    runner_py = ROOT / "courseware" / "grading" / "runner.py"
    read, write = os.pipe()
    script = (
        "import sys, runpy\nsys.path.insert(0, sys.argv[1])\nimport runner\n"
        "runner.install_tripwires(sys.argv[3].split('|'), int(sys.argv[4]))\nrunpy.run_path(sys.argv[2])\n"
    )
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            str(runner_py.parent),
            str(attack),
            "|".join(tripwires(BY_NUMBER[number])),
            str(write),
        ],
        pass_fds=(write,),
        capture_output=True,
        text=True,
        timeout=300,
    )
    os.close(write)
    tripped = os.read(read, 200).decode("utf-8")
    os.close(read)
    if name is None:
        assert run.returncode == 0 and tripped == "" and "跑完了" in run.stdout, run.stderr[-2000:]
    else:
        assert run.returncode == -signal.SIGKILL and tripped == name, (run.returncode, tripped, run.stderr[-2000:])
