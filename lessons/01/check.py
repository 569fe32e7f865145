"""第 01 课差分检查：从语料里随机抽真实的绝句（含以问号作句尾的诗），比较两边切出的句子与字数。"""
import torch

from poetry_gpt.data import load_poems


def cases(gen):
    """24 个用例：(text,)，20 首从全部语料里抽，4 首从句尾带问号或感叹号的诗里抽。"""
    poems = load_poems()
    asking = [p for p in poems if "？" in p["text"] or "！" in p["text"]]
    picks = [poems[i] for i in torch.randint(len(poems), (20,), generator=gen).tolist()]
    picks += [asking[i] for i in torch.randint(len(asking), (4,), generator=gen).tolist()]
    return [(p["text"],) for p in picks]
