"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/18/experiment.py。"""

import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import torch

import poetry_gpt.common
from poetry_gpt.batches import batch_indices
from poetry_gpt.checkpoint import SHIPPED_MODEL, CheckpointError, load_model, read_checkpoint, stored_sizes
from poetry_gpt.data import Tokenizer, default_tokenizer
from poetry_gpt.labs import setup_experiment, show, table
from poetry_gpt.model import ModelConfig, PoetryGPT
from poetry_gpt.train import resume_without, train
from poetry_gpt.train_config import PRESETS

setup_experiment()

work = Path(tempfile.mkdtemp(prefix="lesson18-"))
tok = default_tokenizer()
# tiny 预设的尺寸、很短的一段训练：16 步，每 8 步验证并存档；dropout 0.1，让随机数真的影响损失
tiny = PRESETS["tiny"]
config = replace(
    tiny,
    model=dict(tiny.model, dropout=0.1),
    steps=16,
    warmup=4,
    batch_size=16,
    eval_every=8,
    eval_poems=32,
    train_poems=512,
)
show("本课的小训练", f"{config.model}，共 {config.steps} 步，每步 {config.batch_size} 首诗，种子 {config.seed}")

# 1. 一口气训练 16 步；另一次在第 8 步停下、存档，再续训到 16 步
straight = train(config, work / "straight", progress=False)
stopped = train(config, work / "resumed", stop_at=8, progress=False)
shutil.copy(work / "resumed" / "checkpoint.pt", work / "step8.pt")  # 留一份第 8 步的存档，后面改着玩
resumed = train(config, work / "resumed", resume=True, progress=False)
rows = [
    [e["step"], a["loss"], e["loss"], a["loss"] == e["loss"]]
    for a, e in zip(straight.log, resumed.log)
    if e["step"] > 6 and e["step"] <= 12
]
table(["步", "不中断", "第 8 步停下再续训", "完全相同"], rows, title="两次训练的损失（奈特/字）", digits=5)
show("16 步的损失全都相同", [a["loss"] for a in straight.log] == [e["loss"] for e in resumed.log])
show("第 16 步的验证损失：不中断 / 续训", [straight.log[-1]["val"], resumed.log[-1]["val"]], digits=5)
show(
    "续训后的第一步（日志第 9 条，batch_indices(8, …)）用哪几首诗：只由步数和种子决定",
    batch_indices(8, 512, 16, config.seed)[:6],
)

# 2. 存档里有什么
state = read_checkpoint(work / "step8.pt")
weights = state["weights"]
sizes = stored_sizes(state)  # head 与 characters 共用一张表，只存一份，也只数一次
parts = [
    [
        "weights",
        f"{len(weights)} 个名字、{sizes.tensors} 个张量，共 {sizes.parameters:,} 个参数",
        weights["characters.weight"].dtype,
    ],
    [
        "model_config",
        ", ".join(f"{k}={state['model_config'][k]}" for k in ("vocab_size", "width", "dropout")) + " …",
        "dict",
    ],
    ["vocab_hash", state["vocab_hash"], "str"],
    ["step", state["step"], "int"],
    [
        "optimizer",
        f"{len(state['optimizer']['state'])} 个参数各有 exp_avg、exp_avg_sq、step",
        state["optimizer"]["state"][0]["exp_avg"].dtype,
    ],
    ["rng.torch", f"{state['rng']['torch'].numel()} 字节", state["rng"]["torch"].dtype],
    ["rng.python", f"{len(state['rng']['python'])} 个整数", "list"],
    ["train_config", f"steps={state['train_config']['steps']}, lr={state['train_config']['lr']} …", "dict"],
    ["log", f"{len(state['log'])} 条（每步一条）", "list"],
    [
        "sittings",
        "；".join(f"第 {s['start_step']} → {s['end_step']} 步" for s in state["sittings"])
        + "（每次还记着开始时刻与用时）",
        "list",
    ],
]
table(["部分", "内容", "类型"], parts, title="第 8 步的存档")
show("权重占的字节（fp32）", sizes.weight_bytes)
show("优化器状态占的字节（两份动量）", sizes.optimizer_bytes)
model = PoetryGPT(ModelConfig(**state["model_config"]))
show("模型里的缓冲区", [name for name, _ in model.named_buffers()])
show("其中存进 state_dict 的", [k for k in model.state_dict() if "causal" in k])
show("head.weight 与 characters.weight 在存档里是同一个张量", weights["head.weight"] is weights["characters.weight"])
other = Tokenizer(tok.tokens[:-1])  # 少了最后一个字的汉字表
try:
    read_checkpoint(work / "step8.pt", other)
except CheckpointError as e:
    show("换一张汉字表读这个存档", str(e).replace(str(work), "…"))


# 3. 少放回一样东西，续训就不一样了：resume_without 换掉存档的一部分再续训
rows = []
for name, part in (("全部放回", None), ("不放回优化器状态", "optimizer"), ("不放回随机数状态", "rng")):
    log = resume_without(state, part, config, work / name).log if part else resumed.log
    rows.append([name, log[8]["loss"], log[9]["loss"], log[-1]["loss"], log[-1]["val"]])
rows.append(["对照：不中断", *(straight.log[i]["loss"] for i in (8, 9, 15)), straight.log[-1]["val"]])
table(
    ["续训时", "第 9 步损失", "第 10 步损失", "第 16 步损失", "第 16 步验证"],
    rows,
    title="从第 8 步的存档续训：哪一样都不能少",
    digits=5,
)

# 4. 原子写入：写到一半被打断，旧存档还在
ckpt = work / "resumed" / "checkpoint.pt"
before = read_checkpoint(ckpt)["step"]
real_replace = os.replace


def interrupted(*args):
    raise KeyboardInterrupt  # 假装在改名之前按了 Ctrl-C


poetry_gpt.common.os.replace = interrupted
try:
    poetry_gpt.common.atomic_write_bytes(ckpt, b"half a checkpoint")
except KeyboardInterrupt:
    pass
poetry_gpt.common.os.replace = real_replace
show("原子写入被打断后：旧存档仍能读，步数", read_checkpoint(ckpt)["step"] == before and before)
show("目录里留下的临时文件", [p.name for p in ckpt.parent.iterdir() if p.name.endswith(".tmp")])
naive = work / "naive.pt"
shutil.copy(ckpt, naive)
data = ckpt.read_bytes()
with open(naive, "wb") as f:  # 直接覆盖原文件，只写进去一半就“断电”
    f.write(data[: len(data) // 2])
try:
    read_checkpoint(naive)
except CheckpointError as e:
    show("直接覆盖、写到一半", str(e).replace(str(work), "…"))


# 5. weights_only=True：存档里的 pickle 可以带代码
class Trap:
    def __reduce__(self):  # pickle 读到这个对象时会调用 print(...)——换成别的函数就能删文件
        return (print, ("    ！！这一行是存档里的代码在读档时打印的！！",))


torch.save({"weights": {}, "extra": Trap()}, work / "trap.pt")
show("用 weights_only=False 读这个文件", "……")
torch.load(work / "trap.pt", weights_only=False)
try:
    torch.load(work / "trap.pt", weights_only=True)
except Exception as e:
    reason = next(line for line in str(e).splitlines() if "Unsupported global" in line)
    show("用 weights_only=True 读", f"{type(e).__name__}：{reason.strip().split(' by default')[0]}")
try:
    read_checkpoint(work / "trap.pt")
except CheckpointError as e:
    show("read_checkpoint 读", str(e).replace(str(work), "…"))

# 6. 随课程发布的模型：只有权重的 fp16 导出
shipped = torch.load(SHIPPED_MODEL, weights_only=True)
show("data/model.pt 的部分", sorted(shipped))
show("文件大小（字节）", SHIPPED_MODEL.stat().st_size)
show("权重的类型", shipped["weights"]["characters.weight"].dtype)
model, _ = load_model()
n = model.num_parameters()
show("load_model 之后参数的类型", next(model.parameters()).dtype)
show(
    "fp16 → fp32 是否一个数也没变",
    all(
        torch.equal(p, shipped["weights"][k].float()) for k, p in model.state_dict().items() if k in shipped["weights"]
    ),
)
show("参数个数", n)
show("若存 fp32 权重 + AdamW 两份动量（字节）", n * 4 * 3)
(work / "shipped").mkdir()
shutil.copy(SHIPPED_MODEL, work / "shipped" / "checkpoint.pt")
try:
    own_size = replace(PRESETS["base"], model=shipped["train_config"]["model"])  # 尺寸与存档相同，只差优化器状态
    train(own_size, work / "shipped", resume=True, progress=False)
except CheckpointError as e:
    show("拿它续训", str(e).replace(str(work), "…"))
shutil.rmtree(work)
