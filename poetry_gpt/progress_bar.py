"""训练时终端里的进度条（:func:`poetry_gpt.train.train` 用）：步数、用时、损失、验证损失、学习率、每秒的字数；
进度条上方不时写一首示例诗（:func:`sample_line`）。

rich 只在真要画进度条时才导入；``enabled`` 为假（不要进度、或不是第 0 个进程）时各方法什么也不做。
"""

from __future__ import annotations


def count_and_time(after_count: str = "已用") -> list:
    """进度条里“做完几份/一共几份 已用 0:01:02 剩 0:00:40”这几栏（训练与 ./poet eval 共用）。
    after_count 写在份数与已用时间之间（./poet eval 在这里写单位：“首  已用”）。"""
    from rich.progress import MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return [MofNCompleteColumn(), TextColumn(after_count), TimeElapsedColumn(), TextColumn("剩"), TimeRemainingColumn()]


class ProgressBar:
    """rich 进度条：步数、损失、验证损失、学习率、每秒处理的字数。``enabled`` 为假时什么也不做。"""

    def __init__(self, start: int, total: int, enabled: bool):
        self.enabled = enabled
        self.val = "—"
        if not enabled:
            return
        from rich.progress import BarColumn, Progress, TextColumn
        from rich.table import Column

        from .labs import console

        # 步数与时间在前、宽度固定；损失这些放最后，终端窄（80 列）时只截掉它们的尾巴（…）
        self.progress = Progress(
            TextColumn("训练"),
            *count_and_time(),
            BarColumn(bar_width=10),
            TextColumn("{task.fields[info]}", table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1)),
            console=console,
            expand=True,
        )
        self.task = self.progress.add_task("train", total=total, completed=start, info="")

    def __enter__(self):
        if self.enabled:
            self.progress.start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self.progress.stop()

    def plan(self, total: int, text: str | None) -> None:
        """``--minutes`` 排定了总步数：改进度条的总数，给了 text 时把说明留在进度条上方。"""
        if self.enabled:
            self.progress.update(self.task, total=total)
            if text is not None:
                self.print(text)

    def update(self, step: int, entry: dict, chars_per_s: float) -> None:
        if not self.enabled:
            return
        if "val" in entry:
            self.val = f"{entry['val']:.3f}"
        info = f"损失 {entry['loss']:.3f} · 验证 {self.val} · 学习率 {entry['lr']:.2e} · {chars_per_s:,.0f} 字/秒"
        self.progress.update(self.task, completed=step, info=info)

    def print(self, text: str) -> None:
        if self.enabled:
            self.progress.console.print(text)


def sample_line(model, tokenizer, step: int) -> str:
    """进度条上方的一首示例诗（关键词“月”），写完切回训练模式。"""
    try:
        from .generate import write_poems  # 只在需要示例诗时导入

        poem = write_poems(model, tokenizer, "月", seed=step)[0]
        return f"第 {step} 步的示例（关键词“月”）：{poem.text}"
    except Exception as e:  # 示例诗只是给人看的，写不成也不能打断几十分钟的训练
        return f"第 {step} 步的示例没写成：{e}"
    finally:
        model.train()
