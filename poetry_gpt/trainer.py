"""训练的一步（第 16 课）：取这一批里本进程的一份 → 只在正文与 <eos> 上算交叉熵 → 反向 → 梯度裁剪 → 优化器（AdamW，或 Muon）。

:class:`Trainer` 把每一步都要用的东西放在一起；训练循环（学习率、验证、存档的时机）在 poetry_gpt.train。
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import torch

from .checkpoint import save_checkpoint
from .data import Tokenizer, make_batch
from .devices import Workers
from .loss import ScoredLoss
from .model import PoetryGPT
from .sittings import Sittings


@dataclass
class Trainer:
    """训练循环里不变的部分：模型、优化器、进程、精度，以及写存档与示例诗要用的汉字表、路径与各次训练的记录。"""

    model: PoetryGPT
    optimizer: torch.optim.Optimizer
    workers: Workers
    precision: str
    tokenizer: Tokenizer
    ckpt_path: Path
    sittings: Sittings

    def __post_init__(self):
        # 只在正文与 <eos> 上、分块算输出层与交叉熵（poetry_gpt/loss.py）；多进程时由 DDP 包住
        self.step_loss = self.workers.wrap(ScoredLoss(self.model))

    def step(self, batch: list[list[int]], lr: float, grad_clip: float) -> tuple[torch.Tensor, int]:
        """一步：取这一批里属于本进程的一份 → 只在正文与 <eos> 上算交叉熵 → 反向 → 裁剪到 grad_clip → 优化器走一步。

        Returns:
            (本进程这一份的平均损失（标量张量，奈特/字）, 全批计分的字数)。
        """
        dev, world = self.workers.device, self.workers.world
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        mine = batch[self.workers.rank :: world]
        x, y, mask = (t.to(dev) for t in make_batch(mine))
        n_local = mask.sum()
        n_total = self.workers.all_reduce(n_local.clone())
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=self.precision == "bf16"):
            loss = self.step_loss(x, y, mask)
        # 各进程的平均损失按字数加权：DDP 再对进程取平均后，恰好是整批的平均
        (loss * n_local * world / n_total).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), grad_clip)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss, int(n_total)

    def save(self, step: int, config, log: list, now: float) -> None:
        """写存档（只有第 0 个进程写）；config 是 poetry_gpt.train.TrainConfig，续训时要用；now 是此刻（秒），
        记进这一次训练的用时。"""
        if self.workers.rank == 0:
            save_checkpoint(
                self.ckpt_path,
                self.model,
                self.tokenizer,
                optimizer=self.optimizer,
                step=step,
                config=config,
                log=log,
                sittings=self.sittings.record(step, now, log),
            )

    def snapshot(self, name: str) -> None:
        """把刚写好的存档另存一份 name（先复制成临时文件再改名）：checkpoint.pt 丢了还能从这里接着训练。"""
        if self.workers.rank == 0:
            tmp = self.ckpt_path.with_name(name + ".tmp")
            shutil.copyfile(self.ckpt_path, tmp)
            tmp.replace(self.ckpt_path.with_name(name))

    def end_sitting(self, step: int, total: int, log: list, interrupted: bool, now: float) -> None:
        """这一次训练结束（now 是此刻，秒）：在存档目录的 sittings.txt 里记一行。"""
        if self.workers.rank == 0:
            self.sittings.end(step, now, total, log, interrupted)

    def sample_line(self, step: int) -> str:
        """进度条上方的一首示例诗（关键词“月”），写完切回训练模式。"""
        try:
            from .generate import write_poems  # 只在需要示例诗时导入

            poem = write_poems(self.model, self.tokenizer, "月", seed=step)[0]
            return f"第 {step} 步的示例（关键词“月”）：{poem.text}"
        except Exception as e:  # 示例诗只是给人看的，写不成也不能打断几十分钟的训练
            return f"第 {step} 步的示例没写成：{e}"
        finally:
            self.model.train()
