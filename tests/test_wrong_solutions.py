"""每一课的错解库：学习者真会写出来的错误 solve，./poet check 一个都不能判“通过”。

每个错解只换掉 starter.py 里 solve 的函数体，文件其余部分（包括底部的可见检查）原样保留，
就像学习者照着起始文件写错了一样。种类：差一格、错的维度、原地修改输入、dtype 不对、
形状对但内容是常数、本课说不要用的捷径，以及这一课最典型的混淆。
"""

import pytest

from poetry_gpt.courseware.catalogue import BY_NUMBER, CATALOGUE
from poetry_gpt.courseware.grading import check_file

from lesson_bank import assert_bank_entry_fails, verdict_of, wrong_file, wrong_verdict


BANK = {
    1: {
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
    },
    2: {
        "不连续时用 view": """
            B, T, V = logits.shape
            return (logits + bias).view(B * T, V)""",
        "原地加到 logits 上": """
            B, T, V = logits.shape
            logits += bias
            return logits.reshape(B * T, V)""",
        "结果变成 float64": """
            B, T, V = logits.shape
            return (logits + bias).double().reshape(B * T, V)""",
        "先转置再摊平，行序变成 t*B + b": """
            B, T, V = logits.shape
            return (logits + bias).transpose(0, 1).reshape(B * T, V)""",
        "把 -inf 换成一个很小的数": """
            B, T, V = logits.shape
            return (logits + bias.clamp(min=-1e4)).reshape(B * T, V)""",
    },
    3: {
        "用 most_common 的顺序": """
            counts = Counter(ch for text in texts for ch in text if ch not in PUNCTUATION)
            return counts.most_common(k)""",
        "只去掉 ，。 两种标点": """
            counts = Counter(ch for text in texts for ch in text if ch not in "，。")
            return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]""",
        "数的是含这个字的诗有几首": """
            counts = Counter(ch for text in texts for ch in set(text) if ch not in PUNCTUATION)
            return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]""",
        "同频时码位大的在前": """
            counts = Counter(ch for text in texts for ch in text if ch not in PUNCTUATION)
            return sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k]""",
        "多取一个": """
            counts = Counter(ch for text in texts for ch in text if ch not in PUNCTUATION)
            return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k + 1]""",
    },
    4: {
        "只认 ，。 两种句尾": """
            import re
            lines = re.findall("[^，。]+[，。]", text)
            if "".join(lines) != text:
                return "结尾缺少标点"
            if len(lines) != 4:
                return "不是四句"
            sizes = {len(line) - 1 for line in lines}
            if len(sizes) != 1:
                return "句子长短不一"
            size = sizes.pop()
            if size not in (5, 7):
                return "不是五言或七言"
            return "五言绝句" if size == 5 else "七言绝句"
            """,
        "只量第一句": """
            import re
            lines = re.findall("[^，。？！]+[，。？！]", text)
            if "".join(lines) != text:
                return "结尾缺少标点"
            if len(lines) != 4:
                return "不是四句"
            size = len(lines[0]) - 1
            if size not in (5, 7):
                return "不是五言或七言"
            return "五言绝句" if size == 5 else "七言绝句"
            """,
        "没标点的尾巴直接丢掉": """
            import re
            lines = re.findall("[^，。？！]+[，。？！]", text)
            if len(lines) != 4:
                return "不是四句"
            sizes = {len(line) - 1 for line in lines}
            if len(sizes) != 1:
                return "句子长短不一"
            size = sizes.pop()
            if size not in (5, 7):
                return "不是五言或七言"
            return "五言绝句" if size == 5 else "七言绝句"
            """,
        "先逐句查 5 或 7，再查一样长": """
            import re
            lines = re.findall("[^，。？！]+[，。？！]", text)
            if "".join(lines) != text:
                return "结尾缺少标点"
            if len(lines) != 4:
                return "不是四句"
            sizes = [len(line) - 1 for line in lines]
            if any(size not in (5, 7) for size in sizes):
                return "不是五言或七言"
            if len(set(sizes)) != 1:
                return "句子长短不一"
            return "五言绝句" if sizes[0] == 5 else "七言绝句"
            """,
        "孤零零的标点当成空的一句": """
            import re
            lines = re.split("(?<=[，。？！])", text)
            if lines[-1]:
                return "结尾缺少标点"
            lines = [line for line in lines[:-1] if len(line) > 1]
            if len(lines) != 4:
                return "不是四句"
            sizes = {len(line) - 1 for line in lines}
            if len(sizes) != 1:
                return "句子长短不一"
            size = sizes.pop()
            if size not in (5, 7):
                return "不是五言或七言"
            return "五言绝句" if size == 5 else "七言绝句"
            """,
        "句长把标点也算进去": """
            import re
            lines = re.findall("[^，。？！]+[，。？！]", text)
            if "".join(lines) != text:
                return "结尾缺少标点"
            if len(lines) != 4:
                return "不是四句"
            sizes = {len(line) for line in lines}
            if len(sizes) != 1:
                return "句子长短不一"
            size = sizes.pop()
            if size not in (5, 7):
                return "不是五言或七言"
            return "五言绝句" if size == 5 else "七言绝句"
            """,
    },
    5: {
        "同频按第一次出现的先后": """
            counts = Counter()
            for text in texts:
                counts.update(text)
            kept = [ch for ch, n in counts.items() if n >= min_count]
            kept.sort(key=lambda ch: -counts[ch])
            return list(specials) + kept""",
        "门槛用了 >": """
            counts = Counter()
            for text in texts:
                counts.update(text)
            kept = [ch for ch, n in counts.items() if n > min_count]
            kept.sort(key=lambda ch: (-counts[ch], ord(ch)))
            return list(specials) + kept""",
        "特殊标记放在最后": """
            counts = Counter()
            for text in texts:
                counts.update(text)
            kept = [ch for ch, n in counts.items() if n >= min_count]
            kept.sort(key=lambda ch: (-counts[ch], ord(ch)))
            return kept + list(specials)""",
        "数的是含这个字的诗有几首": """
            counts = Counter()
            for text in texts:
                counts.update(set(text))
            kept = [ch for ch, n in counts.items() if n >= min_count]
            kept.sort(key=lambda ch: (-counts[ch], ord(ch)))
            return list(specials) + kept""",
        "同频时码位大的在前": """
            counts = Counter()
            for text in texts:
                counts.update(text)
            kept = [ch for ch, n in counts.items() if n >= min_count]
            kept.sort(key=lambda ch: (counts[ch], ord(ch)), reverse=True)
            return list(specials) + kept""",
    },
    6: {
        "特殊标记的编号写死": """
            ids = [2, form_id] + list(keyword_ids) + [4] + list(poem_ids) + [3]
            sep_at = 2 + len(keyword_ids)
            return ids, [t > sep_at for t in range(1, len(ids))]""",
        "掩码与 ids 一样长": """
            ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
            sep_at = 2 + len(keyword_ids)
            return ids, [t > sep_at for t in range(len(ids))]""",
        "掩码对齐了输入而不是目标": """
            ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
            sep_at = 2 + len(keyword_ids)
            return ids, [t > sep_at for t in range(len(ids) - 1)]""",
        "<eos> 不计入损失": """
            ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
            sep_at = 2 + len(keyword_ids)
            return ids, [sep_at < t < len(ids) - 1 for t in range(1, len(ids))]""",
        "<sep> 也计入损失": """
            ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
            sep_at = 2 + len(keyword_ids)
            return ids, [t >= sep_at for t in range(1, len(ids))]""",
        "忘了体裁标记": """
            ids = [bos_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
            sep_at = 1 + len(keyword_ids)
            return ids, [t > sep_at for t in range(1, len(ids))]""",
    },
    7: {
        "按列归一": """
            smoothed = pair_counts.float() + k
            return smoothed / smoothed.sum(dim=0, keepdim=True)""",
        "分母忘了 k·V": """
            return (pair_counts.float() + k) / (pair_counts.float().sum(dim=1, keepdim=True) + k)""",
        "结果变成 float64": """
            smoothed = pair_counts.double() + k
            return smoothed / smoothed.sum(dim=1, keepdim=True)""",
        "只给出现过的格子加 k": """
            counts = pair_counts.float()
            smoothed = counts + k * (counts > 0)
            return smoothed / smoothed.sum(dim=1, keepdim=True).clamp(min=1e-12)""",
        "形状对但处处均匀": """
            V = pair_counts.shape[0]
            return torch.full((V, V), 1.0 / V)""",
    },
    8: {
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
    },
    9: {
        "忘了 past：总从第 0 行取": """
            return words + positions[:words.shape[1]]""",
        "从第 past + 1 行开始取": """
            T = words.shape[1]
            if past + T > positions.shape[0]:
                raise ValueError("太长")
            return words + positions[past + 1:past + T + 1]""",
        "正好用完最后一行时也拒绝": """
            T = words.shape[1]
            if past + T >= positions.shape[0]:
                raise ValueError("太长")
            return words + positions[past:past + T]""",
        "太长时悄悄截断": """
            T = words.shape[1]
            rows = positions[past:past + T]
            return words[:, :rows.shape[0]] + rows""",
        "原地加到 words 上": """
            T = words.shape[1]
            if past + T > positions.shape[0]:
                raise ValueError("太长")
            words += positions[past:past + T]
            return words""",
        "拼接而不是相加": """
            T = words.shape[1]
            if past + T > positions.shape[0]:
                raise ValueError("太长")
            rows = positions[past:past + T].expand(words.shape[0], -1, -1)
            return torch.cat([words, rows], dim=-1)""",
    },
    10: {
        "先 softmax 再把后文清零": """
            return F.softmax(scores, dim=-1).tril()""",
        "softmax 做在倒数第二维": """
            T = scores.shape[-1]
            causal = torch.ones(T, T, dtype=torch.bool).tril()
            return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-2)""",
        "遮住的是前文": """
            T = scores.shape[-1]
            causal = torch.ones(T, T, dtype=torch.bool).triu()
            return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)""",
        "原地 masked_fill_ 改了输入": """
            T = scores.shape[-1]
            causal = torch.ones(T, T, dtype=torch.bool).tril()
            scores.masked_fill_(~causal, float("-inf"))
            return F.softmax(scores, dim=-1)""",
        "连对角线也遮住": """
            T = scores.shape[-1]
            causal = torch.ones(T, T, dtype=torch.bool).tril(-1)
            return F.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)""",
        "结果变成 float64": """
            T = scores.shape[-1]
            causal = torch.ones(T, T, dtype=torch.bool).tril()
            return F.softmax(scores.double().masked_fill(~causal, float("-inf")), dim=-1)""",
    },
    11: {
        "拆头时直接 view 成 [B, H, T, C/H]": """
            if t.dim() == 3:
                B, T, C = t.shape
                return t.reshape(B, n_heads, T, C // n_heads)
            B, H, T, D = t.shape
            return t.transpose(1, 2).reshape(B, T, H * D)""",
        "合头时没有转置": """
            if t.dim() == 3:
                B, T, C = t.shape
                return t.view(B, T, n_heads, C // n_heads).transpose(1, 2)
            B, H, T, D = t.shape
            return t.reshape(B, T, H * D)""",
        "合头时对转置后的张量用 view": """
            if t.dim() == 3:
                B, T, C = t.shape
                return t.view(B, T, n_heads, C // n_heads).transpose(1, 2)
            B, H, T, D = t.shape
            return t.transpose(1, 2).view(B, T, H * D)""",
        "各头交错取列": """
            if t.dim() == 3:
                B, T, C = t.shape
                return t.view(B, T, C // n_heads, n_heads).permute(0, 3, 1, 2)
            B, H, T, D = t.shape
            return t.permute(0, 2, 3, 1).reshape(B, T, H * D)""",
        "结果变成 float64": """
            if t.dim() == 3:
                B, T, C = t.shape
                return t.double().view(B, T, n_heads, C // n_heads).transpose(1, 2)
            B, H, T, D = t.shape
            return t.double().transpose(1, 2).reshape(B, T, H * D)""",
    },
    12: {
        "捷径：F.gelu": """
            h = x @ up_weight.T + up_bias
            return torch.nn.functional.gelu(h) @ down_weight.T + down_bias""",
        "GELU 用了 tanh 近似": """
            h = x @ up_weight.T + up_bias
            h = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
            return h @ down_weight.T + down_bias""",
        "用 ReLU 代替 GELU": """
            h = (x @ up_weight.T + up_bias).clamp(min=0)
            return h @ down_weight.T + down_bias""",
        "收回时忘了偏置": """
            h = x @ up_weight.T + up_bias
            h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
            return h @ down_weight.T""",
        "捷径：F.linear": """
            h = torch.nn.functional.linear(x, up_weight, up_bias)
            h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
            return torch.nn.functional.linear(h, down_weight, down_bias)""",
        "GELU 的 √2 乘错了地方": """
            h = x @ up_weight.T + up_bias
            h = 0.5 * h * (1 + torch.erf(h * math.sqrt(2)))
            return h @ down_weight.T + down_bias""",
    },
    13: {
        "方差除以 C-1": """
            mean = x.mean(-1, keepdim=True)
            return (x - mean) / torch.sqrt(x.var(-1, keepdim=True) + eps) * weight + bias""",
        "eps 加在开方之后": """
            mean = x.mean(-1, keepdim=True)
            var = ((x - mean) ** 2).mean(-1, keepdim=True)
            return (x - mean) / (torch.sqrt(var) + eps) * weight + bias""",
        "在倒数第二维上归一化": """
            mean = x.mean(-2, keepdim=True)
            var = ((x - mean) ** 2).mean(-2, keepdim=True)
            return (x - mean) / torch.sqrt(var + eps) * weight + bias""",
        "捷径：F.layer_norm": """
            return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps)""",
        "原地减去均值": """
            x -= x.mean(-1, keepdim=True)
            var = (x ** 2).mean(-1, keepdim=True)
            return x / torch.sqrt(var + eps) * weight + bias""",
        "weight 与 bias 用反了": """
            mean = x.mean(-1, keepdim=True)
            var = ((x - mean) ** 2).mean(-1, keepdim=True)
            return (x - mean) / torch.sqrt(var + eps) * bias + weight""",
    },
    14: {
        "输出层又算了一遍": """
            C = width
            block = 12 * C * C + 13 * C
            return 2 * vocab_size * C + context_length * C + n_layers * block + 2 * C""",
        "忘了偏置": """
            C = width
            block = 12 * C * C + 4 * C
            return vocab_size * C + context_length * C + n_layers * block + 2 * C""",
        "忘了最后的 LayerNorm": """
            C = width
            return vocab_size * C + context_length * C + n_layers * (12 * C * C + 13 * C)""",
        "忘了位置表": """
            C = width
            return vocab_size * C + n_layers * (12 * C * C + 13 * C) + 2 * C""",
        "返回浮点数": """
            C = width
            return vocab_size * C + context_length * C + n_layers * (12 * C ** 2 + 13 * C) + 2 * C / 1""",
        "每层只算一个 LayerNorm": """
            C = width
            return vocab_size * C + context_length * C + n_layers * (12 * C * C + 11 * C) + 2 * C""",
    },
}




CASES = [(number, name) for number, bank in BANK.items() for name in bank]


def test_every_lesson_has_a_bank_of_at_least_five():
    written = [lesson.number for lesson in CATALOGUE if lesson.available and lesson.number <= 14]
    assert written == list(range(1, 15))
    assert all(len(BANK[n]) >= 5 for n in written)


@pytest.mark.parametrize("number,name", CASES, ids=[f"{n:02d}-{name}" for n, name in CASES])
def test_wrong_solution_does_not_pass(number, name, tmp_path):
    """带着与删掉底部的可见检查，都不是“通过”：批改程序自己的源码规则与随机用例就拦得住。"""
    assert_bank_entry_fails(number, name, BANK[number][name], tmp_path)


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


@pytest.mark.parametrize("lesson", [lesson for lesson in CATALOGUE if lesson.available], ids=lambda lesson: lesson.code)
def test_in_process_judge_passes_the_solution_and_not_the_starter(lesson):
    """错解库用的本进程判定与 ./poet check 判得一样：参考答案通过，起始代码“未完成”。"""
    assert verdict_of(lesson.number, lesson.folder / "solution.py").passed
    assert verdict_of(lesson.number, lesson.folder / "starter.py").kind == "not_implemented"


def test_the_grader_catches_an_input_changed_in_place(tmp_path):
    """没有可见检查时，./poet check 的差分检查也认出“原地改了输入”：输出与参考答案一样，但 logits 被改了。"""
    path = wrong_file(2, BANK[2]["原地加到 logits 上"], tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace('if __name__ == "__main__":', "if False:"),
                    encoding="utf-8")
    verdict = check_file(BY_NUMBER[2], path)
    assert verdict.kind == "wrong" and "改动了传进来的第 1 个参数" in verdict.message, verdict.message


def test_importing_the_course_package_in_the_sandbox_is_explained(tmp_path):
    """沙箱里没有 poetry_gpt：拼出名字去导入它的练习得到“崩溃”，消息用中文说明为什么。"""
    from poetry_gpt.courseware import sandbox
    if sandbox.unavailable_reason() is not None:
        pytest.skip("需要能用的 bubblewrap：没有沙箱时包导入得了")
    path = wrong_file(14, '__import__("poetry" + "_gpt.model")\nreturn 0', tmp_path)
    verdict = check_file(BY_NUMBER[14], path)
    assert verdict.kind == "crashed" and "导入不了课程包 poetry_gpt" in verdict.message, verdict.message
