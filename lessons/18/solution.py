"""第 18 课补全练习：存档与读档往返。修改 solve，保持下方检查不变。"""

import io
import math

import torch
from torch import nn
from torch.nn import functional as F

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(setup, stop, total):
    """做完 stop 步时“断电”，从存档在新进程里接着训练到第 total 步；损失要与从没停过的一样。

    步数和训练日志、课文一样从 1 数：“第 k 步”是做完的第 k 步；“做完 stop 步”时存档里的 step 就是 stop。

    先写 ``new_run, train = simulated_run(setup, stop, total)``，得到模拟的两样东西：

    - ``new_run() → (model, optimizer)``：开一个新进程，新建模型和它的优化器。每个新进程都重设 torch 的随机数
      （种子与上一个进程不同），上一个进程内存里的一切随之作废。
    - ``train(model, optimizer, done, n) → list[float]``：已经做完 done 步，接着训练 n 步（第 done + 1 …
      done + n 步），返回每步的损失。学习率随步数变化；dropout 用 torch 的全局随机数。第一个进程的模型
      做完第 stop 步就不能再训练；新进程的模型从第 stop 步接着训练，不能把第 1 … stop 步再做一遍。

    Args:
        setup: 小训练的设置（dict，原样交给 simulated_run）。
        stop: 第一个进程做完第 1 … stop 步后断电（0 ≤ stop ≤ total；0 是一步也没做）。
        total: 总步数。

    Returns:
        list[float]：第 1 … total 步的损失，共 total 个（列表的第 i 项是第 i + 1 步）。

    存档用 torch.save 写进内存里的文件 io.BytesIO，读回时用 torch.load(..., weights_only=True)。
    """
    new_run, train = simulated_run(setup, stop, total)
    model, optimizer = new_run()
    losses = train(model, optimizer, 0, stop)
    buffer = io.BytesIO()
    torch.save(
        {
            "weights": model.state_dict(),  # 参数
            "optimizer": optimizer.state_dict(),  # 动量等优化器状态
            "step": stop,  # 学习率按步数排
            "rng": torch.get_rng_state(),
        },
        buffer,
    )  # dropout 接下来要用的随机数
    # ---- 断电：下面是一个新的进程，只有 buffer 里的字节留了下来 ----
    model, optimizer = new_run()
    buffer.seek(0)
    state = torch.load(buffer, weights_only=True)
    model.load_state_dict(state["weights"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["rng"])  # 放在 new_run() 之后：新建模型也会用掉随机数
    return losses + train(model, optimizer, state["step"], total - state["step"])


class TinyModel(nn.Module):
    """前一个字 → 下一个字：字向量表 [V, C] → dropout → 输出层 [C, V]。"""

    def __init__(self, vocab, width, dropout):
        super().__init__()
        self.characters = nn.Embedding(vocab, width)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(width, vocab)

    def forward(self, prev):
        return self.head(self.drop(self.characters(prev)))

    def __reduce_ex__(self, protocol):  # 整个对象进不了存档，也不能 deepcopy：存 state_dict()
        raise TypeError("不要把整个模型对象存进存档（也不要 deepcopy 它）：请存 model.state_dict()")

    def __deepcopy__(self, memo):
        raise TypeError("不要把整个模型对象存进存档（也不要 deepcopy 它）：请存 model.state_dict()")


def simulated_run(setup, stop, total):
    """模拟一段做完第 stop 步就中断的训练，返回 (new_run, train)；规则见 solve 的说明。不要修改。

    setup 的键：prev、target（[N] 的编号：前一个字、下一个字）、vocab、width、dropout、optimizer（"adamw" 或 "sgd"）、
    lr、warmup、batch_size、seed。
    """
    runs = []

    def new_run():
        for model, optimizer in runs:  # 上一个进程的内存没了：只留着引用、没真正存下来的东西都作废
            with torch.no_grad():
                for p in model.parameters():
                    p.fill_(math.nan)
            for state in optimizer.state.values():
                for value in state.values():
                    if torch.is_tensor(value) and value.is_floating_point():
                        value.fill_(math.nan)
        torch.manual_seed(setup["seed"] + len(runs))  # 新进程有自己的种子
        model = TinyModel(setup["vocab"], setup["width"], setup["dropout"])
        if setup["optimizer"] == "adamw":
            optimizer = torch.optim.AdamW(model.parameters(), lr=setup["lr"], weight_decay=0.1)
        else:
            optimizer = torch.optim.SGD(model.parameters(), lr=setup["lr"], momentum=0.9)
        runs.append((model, optimizer))
        return model, optimizer

    def learning_rate(step):  # 预热后余弦衰减（第 16 课）
        lr, warmup = setup["lr"], setup["warmup"]
        if step < warmup:
            return lr * (step + 1) / warmup
        return lr * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup))))

    def train(model, optimizer, done, n):
        if model is runs[0][0] and done + n > stop:
            raise RuntimeError(
                f"模拟中断：第一个进程做完第 {stop} 步就断电了，它的模型不能再训练；"
                "请把存档读进 new_run() 新建的模型和优化器，再接着训练"
            )
        if model is not runs[0][0] and done < stop:
            raise RuntimeError(
                f"模拟续训：第 1 … {stop} 步第一个进程已经做完了；新进程要从存档里的第 {stop} 步接着训练"
                f"（done = {stop}），不要把做过的步再训练一遍——存档就是为了不从头重来"
            )
        prev, target = setup["prev"], setup["target"]
        model.train()
        losses = []
        for s in range(done, done + n):  # s 是已经做完的步数：这一轮做的是第 s + 1 步
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(s)
            # 这一步用哪几对只由步数决定（像 poetry_gpt.batches.batch_indices），不占用全局随机数
            rows = torch.randint(0, len(prev), (setup["batch_size"],), generator=torch.Generator().manual_seed(s))
            loss = F.cross_entropy(model(prev[rows]), target[rows])  # dropout 用全局随机数
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    return new_run, train


if __name__ == "__main__":
    g = torch.Generator().manual_seed(7)
    setup = {
        "prev": torch.randint(0, 20, (200,), generator=g),
        "target": torch.randint(0, 20, (200,), generator=g),
        "vocab": 20,
        "width": 8,
        "dropout": 0.2,
        "optimizer": "adamw",
        "lr": 0.05,
        "warmup": 3,
        "batch_size": 16,
        "seed": 0,
    }
    new_run, train = simulated_run(setup, 12, 12)  # 一口气训练完，不中断
    model, optimizer = new_run()
    straight = train(model, optimizer, 0, 12)
    for stop in (5, 1, 0, 12):
        got = solve(setup, stop, 12)
        assert isinstance(got, list) and len(got) == 12, f"应返回 12 个损失，实际是 {got!r}"
        wrong = [k for k in range(12) if got[k] != straight[k]]
        assert not wrong, (
            f"做完 {stop} 步时中断、续训后，第 {wrong[0] + 1} 步的损失是 {got[wrong[0]]:.6f}，不中断时是 "
            f"{straight[wrong[0]]:.6f}：存档里是不是少了什么，或者放回的顺序不对？"
        )
    print("本课补全练习通过。")
