"""分几次坐下来训练完的一次长训练（第 18 课的续训，第 26 课的大作业）。

笔记本一次开不了十个小时：``./poet train --stop-after 150`` 训练 150 分钟就写好存档停下，下一次
``--resume`` 从存档接着走，总步数与学习率日程在第一次开始时就定好，存在存档里，每一次都照它走。
这里只记账：每一次（sitting）从第几步到第几步、用了多少秒、验证损失到了多少——记进存档（原子写入），
也一行一行追加到存档目录里的 ``sittings.txt``，人读得懂；每次开始时先说这次训练走到了哪里、还要几次。
不碰模型：时刻与步数都由 ``./poet train``（poetry_gpt/train.py 的 ``train``）给。
"""

from __future__ import annotations

import math
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

LOG_NAME = "sittings.txt"
"""存档目录里每一次开始与结束各记一行的文件。"""


def _now_text() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def last_val(log: list[dict]) -> tuple[int, float] | None:
    """日志里最近一次验证：(步数, 验证损失)；还没验证过时是 None。"""
    return next(((e["step"], e["val"]) for e in reversed(log) if "val" in e), None)


@dataclass
class Sittings:
    """一次训练的各次坐下来：earlier 是存档里记着的以前几次，这一次从 start_step 开始、在时刻 started（秒）开始
    （训练循环开始时由 :meth:`begin` 记下，准备数据的时间不算）。

    每一次记成一个 dict：``began``（开始的时刻，UTC）、``start_step``、``end_step``、``seconds``（这一次训练循环的墙上时间）、
    ``val``（这一次最后一次验证的损失，没有验证过时不写）。
    """

    out: Path
    start_step: int
    earlier: list[dict] = field(default_factory=list)
    started: float = 0.0
    began: str = field(default_factory=_now_text)

    def begin(self, now: float, total: int, minutes: float | None = None, start_from: str | None = None) -> float:
        """训练循环开始：记下时刻 now（秒），在 sittings.txt 记一行这次从哪里开始。返回 now。
        minutes 给了（``--minutes``）时总步数还没排定（量完前几步才排，见 time_budget），这一行只说按几分钟排；
        start_from 给了（微调）时说从哪个模型的权重开始。"""
        self.started = now
        self.began = _now_text()
        origin = "从头训练" if start_from is None else f"从 {start_from} 的权重开始微调"
        if self.start_step == 0 and minutes is not None:
            self.note(f"第 1 次开始：{origin}，总步数按 {minutes:g} 分钟排（量完前几步再定，见这一次结束的那行）")
        elif self.start_step == 0:
            self.note(f"第 1 次开始：{origin}，共 {total} 步")
        else:
            self.note(f"第 {len(self.earlier) + 1} 次开始：读到存档，在第 {self.start_step} 步（共 {total} 步）")
        return now

    def end(self, step: int, now: float, total: int, log: list[dict], interrupted: bool) -> None:
        """这一次结束：在 sittings.txt 记一行停在哪里、用了多久、验证损失。"""
        how = "被 Ctrl-C 打断，" if interrupted else ""
        val = last_val(log)
        text = f"，验证损失 {val[1]:.3f}（第 {val[0]} 步）" if val else ""
        self.note(
            f"第 {len(self.earlier) + 1} 次结束：{how}停在第 {step} 步（共 {total} 步），"
            f"用了 {(now - self.started) / 60:.1f} 分钟{text}"
        )

    def record(self, step: int, now: float, log: list[dict]) -> list[dict]:
        """到时刻 now、第 step 步为止的全部记录（以前几次加上这一次），写存档时存进去。"""
        this = {
            "began": self.began,
            "start_step": self.start_step,
            "end_step": step,
            "seconds": round(now - self.started, 1),
        }
        val = last_val(log)
        if val is not None and val[0] > self.start_step:
            this["val"] = val[1]
        return [*self.earlier, this]

    def note(self, line: str) -> None:
        """往 sittings.txt 追加一行（带时刻）；写不进去也不打断训练（存档照样写，只少一行记录）。"""
        try:
            with open(self.out / LOG_NAME, "a", encoding="utf-8") as f:
                f.write(f"{_now_text()}  {line}\n")
        except OSError:
            pass

    def seconds_per_step(self) -> float | None:
        """以前几次平均每步的秒数（含验证与存档）；以前没有训练过时是 None。"""
        steps = sum(s["end_step"] - s["start_step"] for s in self.earlier)
        seconds = sum(s["seconds"] for s in self.earlier)
        return seconds / steps if steps > 0 and seconds > 0 else None

    def where_we_stand(self, total: int, log: list[dict], stop_after: float | None) -> str:
        """续训开始时说这次训练走到了哪里：第几步、还剩几步、验证损失、以前几次的用时、照这个速度还要几次。

        例：以前 2 次、每次 9000 秒走 10000 步，总步数 40000，stop_after=150 →
        “第 3 次：从第 20000 步接着训练（共 40000 步，还剩 20000 步）；验证损失最近 4.118（第 20000 步），最好 4.118；
        以前 2 次共 5.0 小时，平均每步 0.900 秒，照这个速度还要约 5.0 小时，每次 150 分钟约 2 次”。
        """
        left = total - self.start_step
        parts = [f"第 {len(self.earlier) + 1} 次：从第 {self.start_step} 步接着训练（共 {total} 步，还剩 {left} 步）"]
        vals = [e["val"] for e in log if "val" in e]
        if vals:
            step, val = last_val(log)
            parts.append(f"验证损失最近 {val:.3f}（第 {step} 步），最好 {min(vals):.3f}")
        per_step = self.seconds_per_step()
        if per_step is not None:
            hours_done = sum(s["seconds"] for s in self.earlier) / 3600
            hours_left = left * per_step / 3600
            text = (
                f"以前 {len(self.earlier)} 次共 {hours_done:.1f} 小时，平均每步 {per_step:.3f} 秒，"
                f"照这个速度还要约 {hours_left:.1f} 小时"
            )
            if stop_after:
                text += f"，每次 {stop_after:g} 分钟约 {max(1, math.ceil(hours_left * 60 / stop_after))} 次"
            parts.append(text)
        return "；".join(parts)


def snapshot_name(step: int) -> str:
    """每一次结束时另存一份的存档名：丢了 checkpoint.pt 也能从最近一次结束时接着训练。"""
    return f"sitting-step-{step:06d}.pt"


def keep_snapshot(checkpoint: Path, step: int) -> None:
    """把刚写好的存档另存一份 :func:`snapshot_name`，放在同一个目录（先复制成临时文件再改名）。"""
    name = snapshot_name(step)
    tmp = checkpoint.with_name(name + ".tmp")
    shutil.copyfile(checkpoint, tmp)
    tmp.replace(checkpoint.with_name(name))
