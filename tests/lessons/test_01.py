"""第 01 课（一首诗从哪里来）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。"""

import pytest
from lesson_bank import LESSONS, assert_bank_entry_fails, verdict_of

BANK = {
    "没减去最大值：e 的几千次方溢出成 inf": """
        weights = torch.exp(logits)
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "减去的是最小值": """
        weights = torch.exp(logits - logits[logits != -math.inf].min())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "按概率大于 0 挑候选：分数有限、概率小到 0.0 的字被漏掉": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        kept = [i for i, p in enumerate(probs) if p > 0]
        kept.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in kept[:k]]""",
    "并列时编号大的在前": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], -i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "用 torch.topk：并列时不保证编号小的在前": """
        weights = torch.exp(logits - logits.max())
        probs = weights / weights.sum()
        top = torch.topk(probs, min(k, int(torch.isfinite(logits).sum())))
        return [(chars[i], p) for p, i in zip(top.values.tolist(), top.indices.tolist())]""",
    "返回的是分数 logits，不是概率": """
        values = logits.tolist()
        finite = [i for i, x in enumerate(values) if x != -math.inf]
        finite.sort(key=lambda i: (-values[i], i))
        return [(chars[i], values[i]) for i in finite[:k]]""",
    "只取了 e 的次方，没除以总和": """
        weights = torch.exp(logits - logits.max()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-weights[i], i))
        return [(chars[i], weights[i]) for i in finite[:k]]""",
    "概率是 0 维张量，不是 Python 的 float": """
        weights = torch.exp(logits - logits.max())
        probs = weights / weights.sum()
        finite = [i for i in range(len(chars)) if logits[i] != -math.inf]
        finite.sort(key=lambda i: (-probs[i].item(), i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "多取一个": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k + 1]]""",
    "从小到大排": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
    "忘了 -inf：被挡掉的字也当候选": """
        weights = torch.exp(logits - logits.max())
        probs = (weights / weights.sum()).tolist()
        order = sorted(range(len(chars)), key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in order[:k]]""",
    "只在前 k 个候选里归一": """
        weights = torch.exp(logits - logits.max()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-weights[i], i))
        top = finite[:k]
        total = sum(weights[i] for i in top)
        return [(chars[i], weights[i] / total) for i in top]""",
    "原地减去最大值，改动了 logits": """
        logits -= logits.max()
        weights = torch.exp(logits)
        probs = (weights / weights.sum()).tolist()
        finite = [i for i, x in enumerate(logits.tolist()) if x != -math.inf]
        finite.sort(key=lambda i: (-probs[i], i))
        return [(chars[i], probs[i]) for i in finite[:k]]""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(1, name, BANK[name], tmp_path)


OLDER_CHECK = """
if __name__ == "__main__":
    chars = ["春", "风", "月", "花", "<eos>"]
    logits = torch.tensor([0.0, math.log(2.0), 0.0, float("-inf"), math.log(4.0)])
    got = solve(logits, chars, 2)
    assert [ch for ch, _ in got] == ["<eos>", "风"], f"应按概率从大到小取前 2 个：{got}"
    # 这一课要亲手算一遍 softmax；torch.softmax 一步做完，就看不到“减去最大值”这一步了
    import inspect

    body = inspect.getsource(solve).split('\"\"\"')[-1]  # 只看文档字符串之后的代码
    assert "softmax" not in body, (
        "请不要调用 softmax 函数：本课要亲手写出减去最大值、取 e 的次方、除以总和这三步；第 10 课以后再用 torch.softmax"
    )
    print("本课补全练习通过。")
"""
"""上个月的起始文件底部的可见检查（在源码文本里找 "softmax"、用 inspect）：更新课程之后仍留在学习者的文件里。"""


def test_a_file_started_from_an_older_starter_passes(tmp_path):
    """底部还是旧版可见检查的练习文件，solve 写对了就通过：源码规则只查差分检查时会运行的代码。"""
    solution = (LESSONS[1].folder / "solution.py").read_text(encoding="utf-8")
    path = tmp_path / "my_exercise.py"
    path.write_text(solution[: solution.index('if __name__ == "__main__":')] + OLDER_CHECK, encoding="utf-8")
    verdict = verdict_of(1, path)
    assert verdict.passed, verdict.message
