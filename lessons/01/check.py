"""第 01 课差分检查：从语料里随机抽真实的绝句（含以问号作句尾的诗），比较两边切出的句子与字数。"""
import torch

from poetry_gpt.data import load_poems

HINT = ("用一个变量攒当前这一句的字，逐字读 text：遇到 ，。？！ 之一，就把 (攒下的字, 它的长度) "
        "放进结果，再清空重来；其它字接到后面。句尾标点不算进句子。"
        "七言绝句每句 7 个字，问号 ？ 和感叹号 ！ 也是句尾。")


def cases(gen):
    """24 个用例：(text,)，20 首从全部语料里抽，4 首从句尾带问号或感叹号的诗里抽。"""
    poems = load_poems()
    asking = [p for p in poems if "？" in p["text"] or "！" in p["text"]]
    picks = [poems[i] for i in torch.randint(len(poems), (20,), generator=gen).tolist()]
    picks += [asking[i] for i in torch.randint(len(asking), (4,), generator=gen).tolist()]
    return [(p["text"],) for p in picks]
