"""第 18 课差分检查：一段会在第 stop 步“断电”的小训练，比较学习者与参考答案续训后的全部损失。

每个用例是 (setup, stop, total)：模型在真实的诗上学“前一个字 → 下一个字”，规则见练习文件里的 simulated_run：
每次 new_run() 都是新进程（重设随机数，上一个进程的参数与优化器状态作废成 NaN），第一个进程只能训练到第 stop 步，
模型对象不能整个存进存档。

边界：stop = 0（还没训练就中断）、stop = total（断在最后）、stop 落在预热里、dropout 为 0（随机数不影响损失）、
优化器是 AdamW 或带动量的 SGD（两者的状态都要存）。
"""

import ast
import importlib.util
import threading
from pathlib import Path

import torch

# 源码规则（批改程序在运行练习之前用 ast 查；见 grading.rule_problem 与下面的 source_problem）：
# 存档要真的变成字节（torch.save）再读回来（torch.load(..., weights_only=True)），不能只在内存里复制一份对象
FORBIDDEN = {
    name: f"不要用 {name}：本课的存档要经过 torch.save 写成字节、再用 torch.load(..., weights_only=True) 读回，"
    "在内存里复制一份对象，真断电时什么也留不下"
    for name in ("deepcopy", "pickle", "marshal", "dill")
}
FORBIDDEN_NAMES = {"copy": FORBIDDEN["deepcopy"].replace("deepcopy", "copy 模块")}
FORBIDDEN["poetry_gpt"] = "不要调用课程包 poetry_gpt 里现成的存档函数：本课要你自己决定存档里放哪几样"


def _calls(code, name):
    """code 里调用 x.name(...) 或 name(...) 的地方。"""
    return [
        node
        for node in ast.walk(code)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == name)
            or (isinstance(node.func, ast.Name) and node.func.id == name)
        )
    ]


def _not_started(code):
    """solve 的函数体（文档字符串之后）只有起始文件里那一句 raise NotImplementedError(...)：还没开始写，交给运行去判“未完成”。"""
    solve = next((n for n in code.body if isinstance(n, ast.FunctionDef) and n.name == "solve"), None)
    body = solve.body if solve else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and "NotImplementedError" in ast.dump(body[0])


def _given(code):
    """练习文件里模拟断电的规则：simulated_run 与 TinyModel 的 ast.dump（不含行号），名字 → 定义。"""
    return {
        node.name: ast.dump(node)
        for node in code.body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in ("simulated_run", "TinyModel")
    }


# 参考答案里的原样：新进程不许把做过的步再训练一遍（只存第 0 步、新进程从头重来，损失也一样），
# 这条规则写在 simulated_run 里，所以它与 TinyModel 都不许改
_GIVEN = _given(ast.parse(Path(__file__).with_name("solution.py").read_text(encoding="utf-8")))


def source_problem(code):
    """simulated_run 与 TinyModel 与起始文件里的一样（模拟断电的规则，不能改）；要有 torch.save，要有 torch.load，
    而且每个 torch.load 都写明 weights_only=True（第 18 课的安全规则）。"""
    if _not_started(code):
        return None
    changed = [name for name in _GIVEN if _given(code).get(name) != _GIVEN[name]]
    if changed:
        return (
            f"练习文件里的 {'、'.join(changed)} 被改动或删掉了：它们是模拟断电的规则（第一个进程做完第 stop 步就断电、"
            "新进程从存档的步数接着训练），请保持起始文件里的原样，只改 solve"
        )
    if not _calls(code, "save"):
        return "存档要用 torch.save 写进 io.BytesIO（真的变成字节）：只在内存里留着对象，断电之后什么也没有"
    loads = _calls(code, "load")
    if not loads:
        return "读档要用 torch.load(buffer, weights_only=True) 从存档的字节里读回来"
    for call in loads:
        flag = next((k.value for k in call.keywords if k.arg == "weights_only"), None)
        if not (isinstance(flag, ast.Constant) and flag.value is True):
            return (
                f"第 {call.lineno} 行的 torch.load 要写明 weights_only=True：它只认张量、数、字符串、列表、字典，"
                "别人的 .pt 文件里藏着的代码不会被执行；本课的存档只放这些东西，所以一定读得回来"
            )
    return None


def compare(expected, got):
    """续训的损失要与从没停过的逐位相同：每一步都是 Python 的 float，用 == 比较，不是“差不多”。"""
    if not isinstance(got, list) or len(got) != len(expected):
        return f"应返回 {len(expected)} 个损失的列表（第 1 … {len(expected)} 步），实际是 {str(got)[:80]}"
    for step, (want, value) in enumerate(zip(expected, got)):
        if type(value) is not float:
            return f"第 {step + 1} 步的损失应是 Python 的 float，实际是 {type(value).__name__}"
        if value != want:
            return (
                f"第 {step + 1} 步的损失应为 {want!r}，实际是 {value!r}：续训的损失要与从没停过的逐位相同，"
                "差一点点也不行。先查随机数：dropout 用 torch 的全局随机数，存档里要有 torch.get_rng_state()，"
                "读档时在 new_run() 之后放回（新进程的种子不同，新建模型也会用掉随机数）；再查别的状态少存、放错了没有"
                "（优化器的动量、步数）；最后才是精度（存档里的数存成了 half、bfloat16）"
            )
    return None


_STATES = {}  # (种子、设置、stop) → 第一个进程做完第 stop 步时该存的张量
_STATES_LOCK = threading.Lock()  # ./poet grade 多线程判定：重算用全局随机数，一次只算一个


def _state_at_stop(setup, stop, total):
    """照练习里模拟断电的规则（参考答案的 simulated_run），第一个进程做完第 stop 步时续训要的全部张量：
    模型的参数、优化器的状态（动量、步数）与全局随机数的状态。在批改程序自己的进程里重算，算完放回随机数。"""
    key = tuple(setup[k] for k in ("seed", "vocab", "width", "dropout", "optimizer", "lr", "warmup", "batch_size"))
    key += (stop, total)
    with _STATES_LOCK:
        if key not in _STATES:
            spec = importlib.util.spec_from_file_location("solution_18_rules", Path(__file__).with_name("solution.py"))
            solution = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(solution)
            with torch.random.fork_rng():
                new_run, train = solution.simulated_run(setup, stop, total)
                model, optimizer = new_run()
                train(model, optimizer, 0, stop)
                state = optimizer.state_dict()["state"].values()
                tensors = [*model.state_dict().values(), *(v for s in state for v in s.values() if torch.is_tensor(v))]
                _STATES[key] = [t.detach().clone() for t in tensors] + [torch.get_rng_state()]
        return _STATES[key]


def _saved_tensors(value, found, depth=0):
    """存档读回来的对象里的每个张量（字典的值、列表与元组的项，最多 16 层）。"""
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif depth < 16 and isinstance(value, (dict, list, tuple)):
        for item in value.values() if isinstance(value, dict) else value:
            _saved_tensors(item, found, depth + 1)
    return found


def saved_problem(case, saved):
    """存档真的经过 torch.save：批改程序在自己的进程里读回学习者每次调用存下的存档（weights_only=True），
    第一个进程做完第 stop 步时续训要的每个张量（参数、优化器状态、随机数状态）都要在里面，一模一样。
    只在内存里留一份（.clone()、列表）再存一份空的存档，读回来的字节里就什么也没有。"""
    setup, stop, total = case
    if not saved:
        return (
            "solve 一次也没有调用 torch.save：存档要真的写成字节（torch.save 写进 io.BytesIO），"
            "只在内存里留着对象，断电之后什么也没有"
        )
    found = []
    for value in saved:
        _saved_tensors(value, found)
    missing = [
        t
        for t in _state_at_stop(setup, stop, total)
        if not any(g.dtype == t.dtype and g.shape == t.shape and torch.equal(g, t) for g in found)
    ]
    if missing:
        unreadable = [str(v) for v in saved if not isinstance(v, (dict, list, tuple, torch.Tensor))]
        return (
            f"torch.save 存下的存档里缺了做完第 {stop} 步时续训要的 {len(missing)} 个张量（模型参数、优化器状态、"
            f"随机数状态）：批改程序在另一个进程里读回你存下的字节，里面没有它们"
            + (f"（读不回来的：{'、'.join(unreadable[:3])}）" if unreadable else "")
            + "。续训要的东西都要写进存档：只在内存里留一份（.clone()、列表），新进程读不到"
        )
    return None


def explain(message):
    """子进程出错时补一句：torch.load 读到了文件末尾，多半是忘了 seek(0)。"""
    if "EOFError" in message:
        return (
            "torch.load 读到了文件末尾（EOFError）：torch.save 写完之后，io.BytesIO 的读写位置停在末尾，"
            "读档之前要先 buffer.seek(0) 回到开头。"
        )
    return None


def _corpus_pairs():
    """val 里前 40 首诗（含标点）的相邻两字，按这些诗自己的用字重新编号（编号少，模型小，检查快）。"""
    from poetry_gpt.data import load_poems

    text = "".join(p["text"] for p in load_poems("val")[:40])
    chars = sorted(set(text))
    ids = torch.tensor([chars.index(c) for c in text])
    return ids[:-1].clone(), ids[1:].clone(), len(chars)


def cases(gen):
    """14 个用例：(setup, stop, total)。前 6 个是边界，其余随机。"""
    prev, target, vocab = _corpus_pairs()
    pick = lambda options: options[int(torch.randint(0, len(options), (1,), generator=gen))]
    plans = [  # (stop, total, dropout, optimizer)
        (0, 6, 0.2, "adamw"),  # 还没训练就中断
        (8, 8, 0.2, "adamw"),  # 全部训练完才“中断”：续训 0 步
        (2, 10, 0.3, "adamw"),  # 断在预热里
        (5, 12, 0.0, "adamw"),  # 没有 dropout：随机数不影响损失
        (4, 10, 0.2, "sgd"),  # 带动量的 SGD：动量也是优化器状态
        (9, 10, 0.1, "adamw"),  # 只剩最后一步
    ]
    for _ in range(8):
        total = int(torch.randint(4, 16, (1,), generator=gen))
        plans.append(
            (
                int(torch.randint(1, total, (1,), generator=gen)),
                total,
                pick([0.1, 0.2, 0.4]),
                pick(["adamw", "adamw", "sgd"]),
            )
        )
    out = []
    for stop, total, dropout, optimizer in plans:
        setup = {
            "prev": prev,
            "target": target,
            "vocab": vocab,
            "width": 16,
            "dropout": dropout,
            "optimizer": optimizer,
            "lr": 0.05,
            "warmup": 3,
            "batch_size": 32,
            "seed": int(torch.randint(0, 10_000, (1,), generator=gen)),
        }
        out.append((setup, stop, total))
    return out


# 课文点到的每一种情形（tests/lessons/test_case_kinds.py 查任何种子生成的用例都覆盖到）：判断函数收到 (用例, 参考输出)
KINDS = {
    "stop = 0（还没训练就中断）": lambda case, want: case[1] == 0,
    "stop = total（断在最后，续训 0 步）": lambda case, want: case[1] == case[2],
    "只剩最后一步": lambda case, want: case[1] == case[2] - 1,
    "断在预热里": lambda case, want: 0 < case[1] < case[0]["warmup"],
    "断在预热之后": lambda case, want: case[0]["warmup"] <= case[1] < case[2],
    "没有 dropout（随机数不影响损失）": lambda case, want: case[0]["dropout"] == 0,
    "带动量的 SGD": lambda case, want: case[0]["optimizer"] == "sgd",
    "AdamW": lambda case, want: case[0]["optimizer"] == "adamw",
}
