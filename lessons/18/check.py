"""第 18 课差分检查：一段会在第 stop 步“断电”的小训练，比较学习者与参考答案续训后的全部损失。

每个用例是 (setup, stop, total)：模型在真实的诗上学“前一个字 → 下一个字”，规则见练习文件里的 simulated_run：
每次 new_run() 都是新进程（重设随机数，上一个进程的参数与优化器状态作废成 NaN），第一个进程只能训练到第 stop 步，
模型对象不能整个存进存档。

边界：stop = 0（还没训练就中断）、stop = total（断在最后）、stop 落在预热里、dropout 为 0（随机数不影响损失）、
优化器是 AdamW 或带动量的 SGD（两者的状态都要存）。
"""
import torch


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
        (0, 6, 0.2, "adamw"),      # 还没训练就中断
        (8, 8, 0.2, "adamw"),      # 全部训练完才“中断”：续训 0 步
        (2, 10, 0.3, "adamw"),     # 断在预热里
        (5, 12, 0.0, "adamw"),     # 没有 dropout：随机数不影响损失
        (4, 10, 0.2, "sgd"),       # 带动量的 SGD：动量也是优化器状态
        (9, 10, 0.1, "adamw"),     # 只剩最后一步
    ]
    for _ in range(8):
        total = int(torch.randint(4, 16, (1,), generator=gen))
        plans.append((int(torch.randint(1, total, (1,), generator=gen)), total, pick([0.1, 0.2, 0.4]),
                      pick(["adamw", "adamw", "sgd"])))
    out = []
    for stop, total, dropout, optimizer in plans:
        setup = {"prev": prev, "target": target, "vocab": vocab, "width": 16, "dropout": dropout,
                 "optimizer": optimizer, "lr": 0.05, "warmup": 3, "batch_size": 32,
                 "seed": int(torch.randint(0, 10_000, (1,), generator=gen))}
        out.append((setup, stop, total))
    return out
