"""判定与限制：Verdict（一次检查的结果）、Limits（检查子进程的上限）与各处共用的大小上限。"""

from __future__ import annotations

from dataclasses import dataclass

from ..defaults import CHECK_MEMORY_MB, CHECK_TIMEOUT_S, WALL_EXTRA_S, WALL_FACTOR

VERDICTS = {
    "passed": "通过",
    "not_implemented": "未完成",
    "wrong": "答案错误",
    "crashed": "崩溃",
    "timeout": "超时",
    "syntax": "语法错误",
    "error": "批改出错",
}
CHILD_STATUSES = ("not_implemented", "wrong", "crashed", "syntax")  # 子进程能交回的失败判定；“通过”只由批改程序给
OUTPUT_LIMIT = 32 << 20  # 子进程写的每个文件（输出、答案）最多 32 MiB，再多就写不进去
MAX_FILE_BYTES = 1 << 20  # 超过 1 MiB 的“练习文件”不读、不检查
MESSAGE_CHARS = 4000  # 判定消息最多这么多字符
SHOWN_CHARS = 2000  # 判定消息里最多引用这么多字符的输出
MIN_MEMORY_MB = 1024  # 检查进程内存上限的下限：导入 torch（约 640 MiB 地址空间）并跑完一课的参考答案都够


@dataclass(frozen=True)
class Verdict:
    """一次检查的结果。kind 是 VERDICTS 的键；message 是给学习者看的中文；seconds 是用时（墙上的秒数）；
    cpu_seconds 是时间上限算的那个数：这次检查的全部进程用掉的 CPU 秒数（没有运行学习者的代码时为 0；
    cgroup 记不了、上限只管每个进程各自时为 None）。不可改动：./poet grade 的几个线程共用判定。"""

    kind: str
    message: str
    seconds: float = 0.0
    cpu_seconds: float | None = 0.0

    @property
    def passed(self) -> bool:
        return self.kind == "passed"

    @property
    def label(self) -> str:
        return VERDICTS[self.kind]


@dataclass(frozen=True)
class Limits:
    """子进程的限制：timeout 是 CPU 秒数（学习者的进程自己算了多久；墙上时间另有 wall_seconds(timeout) 的后备上限），
    内存 MiB（cgroup 可用时是这次检查的全部进程连同内存盘合计，否则每个进程各自）、计算线程数；
    sandbox 为 False 时即使有 bwrap 也不用；hidden 是沙箱里另外要藏起来的文件夹（./poet grade 的班级文件夹，
    它落在沙箱放进来的文件夹里时也看不见）。不可改动：同一个 Limits 可以放心地当默认参数、在线程间共用。"""

    timeout: float = CHECK_TIMEOUT_S
    memory_mb: int = CHECK_MEMORY_MB
    threads: int = 2
    sandbox: bool = True
    hidden: tuple[str, ...] = ()


def capped(text: str) -> str:
    """学习者交回的一段文字先截到 MESSAGE_CHARS 个字符（至多 4 倍的 UTF-8 字节），再转义、显示：
    屏幕上、JSON 报告里的消息从不超过十几 KiB，批改程序花在上面的时间与内存与学习者交了多长无关。"""
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " …（后面省略）"


def wall_seconds(timeout: float) -> float:
    """墙上时间的后备上限：CPU 时间（timeout）管的是学习者自己算了多久，这个只防睡着不走、等输入的程序。"""
    return WALL_FACTOR * timeout + WALL_EXTRA_S
