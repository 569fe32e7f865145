"""第 08 课（给汉字一组可学习的数字）：错解库——学习者真会写出来的错误 solve，
./poet check 一个都不能判“通过”（见 lesson_bank.py）。
照课文做 one-hot 乘法的正确写法不被源码规则误伤。"""

import pytest
from lesson_bank import assert_bank_entry_fails, verdict_of, wrong_file, wrong_verdict

BANK = {
    "捷径：直接下标查表": """
        return weight[ids]""",
    "捷径：F.embedding": """
        return F.embedding(ids, weight)""",
    "V 取 ids.max() + 1": """
        one_hot = F.one_hot(ids).to(weight.dtype)
        return one_hot @ weight""",
    "结果变成 float64": """
        one_hot = F.one_hot(ids, weight.shape[0]).double()
        return one_hot @ weight.double()""",
    "捷径：index_select": """
        return weight.index_select(0, ids.flatten()).view(*ids.shape, -1)""",
    "捷径：换个名字再下标查表": """
        table = weight
        return table[ids]""",
    "捷径：weight.data 下标查表": """
        return weight.data[ids]""",
    "捷径：转置两次再下标查表": """
        return weight.T.T[ids]""",
    "捷径：循环里逐个下标取行": """
        rows = [weight[i] for i in ids.flatten().tolist()]
        return torch.stack(rows).view(*ids.shape, weight.shape[1])""",
    "捷径：torch.gather": """
        index = ids.reshape(-1, 1).expand(-1, weight.shape[1])
        return torch.gather(weight, 0, index).view(*ids.shape, -1)""",
    "逐行去找：next 配 enumerate": """
        rows = [next(row for i, row in enumerate(weight) if i == k) for k in ids.flatten().tolist()]
        return torch.stack(rows).view(*ids.shape, weight.shape[1])
        """,
    "逐行去找：zip 配 range": """
        rows = []
        for k in ids.flatten().tolist():
            for i, row in zip(range(weight.shape[0]), weight):
                if i == k:
                    rows.append(row)
        return torch.stack(rows).view(*ids.shape, weight.shape[1])
        """,
    # 不用下标，代码里也有一个 @：旧的规则只看有没有矩阵乘法。表里没被查到的一行有 inf 时，乘整张表的结果
    # 这一列全是 nan，查出来的是有限的数
    "捷径：dict.get 查表，外加一次无关的 @": """
        rows = dict(zip(range(weight.shape[0]), weight))
        gram = weight @ weight.T  # noqa: F841
        picked = [rows.get(k) for k in ids.flatten().tolist()]
        return torch.stack(picked).view(*ids.shape, weight.shape[1])""",
}


@pytest.mark.parametrize("name", BANK)
def test_wrong_solution_does_not_pass(name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(8, name, BANK[name], tmp_path)


# 第 08 课的源码规则拦下一切用变量做的下标；这些照课文做 one-hot 乘法的写法不能被误伤
RIGHT_08 = {
    "num_classes 用关键字参数": """
        V = weight.shape[0]
        return F.one_hot(ids, num_classes=V).float() @ weight""",
    "比较出 one-hot": """
        one_hot = (ids[..., None] == torch.arange(weight.shape[0])).to(weight.dtype)
        return one_hot @ weight""",
    "scatter_ 写出 one-hot": """
        B, T = ids.shape
        one_hot = torch.zeros(B, T, weight.shape[0], dtype=weight.dtype)
        one_hot.scatter_(2, ids.unsqueeze(-1), 1.0)
        return one_hot @ weight""",
    "展平后乘再变回形状": """
        one_hot = F.one_hot(ids.reshape(-1), weight.size(0)).to(weight.dtype)
        return (one_hot @ weight).view(*ids.shape, weight.shape[-1])""",
    "einsum，带类型注解的小函数": """
        def encode(x: torch.Tensor, size: int) -> tuple[torch.Tensor, int]:
            return F.one_hot(x, size).to(weight.dtype), size
        one_hot, _ = encode(ids, weight.shape[0])
        return torch.einsum("btv,vc->btc", one_hot, weight)""",
}


@pytest.mark.parametrize("name", list(RIGHT_08))
def test_lesson_08_rule_passes_other_correct_one_hot_solutions(name, tmp_path):
    verdict = wrong_verdict(8, RIGHT_08[name], tmp_path)
    assert verdict.passed, f"正确的写法“{name}”得到了“{verdict.label}”：{verdict.message}"


def test_lesson_08_a_lookup_beside_an_unrelated_product_is_told_what_happened(tmp_path):
    """查表再随手乘一个无关的 @：结果与参考答案在没有 inf 的用例上一样，判的是表里有 inf 的那一列。"""
    path = wrong_file(8, BANK["捷径：dict.get 查表，外加一次无关的 @"], tmp_path)
    source = path.read_text(encoding="utf-8")
    path.write_text(source[: source.index('if __name__ == "__main__":')], encoding="utf-8")  # 删掉底部的可见检查
    verdict = verdict_of(8, path)
    assert verdict.kind == "wrong" and "0 × inf = nan" in verdict.message, verdict.message
