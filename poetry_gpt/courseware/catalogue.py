"""课程目录（全课唯一的一份课表）、课号解析与学习进度。

CLI、测试和网站都从这里读课表；别处不再另存课程列表。
"""
from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..common import ROOT, atomic_write_text

LESSONS_DIR = ROOT / "lessons"
WORKSPACE = Path(os.environ.get("POET_WORKSPACE") or ROOT)
"""学习者自己的文件（练习、进度）放在哪里；默认就是仓库，测试时指向临时目录。"""
PROGRESS_FILE = WORKSPACE / ".progress.json"
EXERCISE = "my_exercise.py"

SECTIONS = {
    "01": "起步",
    "02": "数据",
    "03": "GPT 的内部",
    "04": "训练",
    "05": "写诗",
    "06": "评估与作品",
}


@dataclass(frozen=True)
class Lesson:
    """课表里的一课。"""

    number: int
    section: str  # SECTIONS 的键
    title: str
    goal: str
    exercise: str

    @property
    def code(self) -> str:
        """两位课号，如 "09"。"""
        return f"{self.number:02d}"

    @property
    def folder(self) -> Path:
        return LESSONS_DIR / self.code

    @property
    def exercise_file(self) -> Path:
        """学习者的练习文件 lessons/NN/my_exercise.py（在 WORKSPACE 下）。"""
        return WORKSPACE / "lessons" / self.code / EXERCISE

    @property
    def available(self) -> bool:
        """课程文件夹已写好（五个文件都在）。"""
        return all((self.folder / f).is_file() for f in LESSON_FILES)

    @property
    def section_title(self) -> str:
        return f"{self.section} {SECTIONS[self.section]}"


LESSON_FILES = ("README.md", "experiment.py", "starter.py", "solution.py", "check.py")

CATALOGUE = [Lesson(*row) for row in [
    (1, "01", "一首诗从哪里来", "用随课程发布的模型写一首诗，再沿着流水线一步步倒推回去", "把一首绝句切成句子并数出每句字数"),
    (2, "01", "张量与形状", "认识 [B,T,C] 这些形状，练习索引、广播与 view/reshape", "一次广播相加与变形"),
    (3, "01", "读诗：语料一览", "读 poems.jsonl，看体裁、朝代、划分与字频", "统计出现最多的 k 个字"),
    (4, "02", "清洗一首诗", "clean_record 如何处理标点、括注、缺字与不合格的诗", "统一标点"),
    (5, "02", "汉字表", "Tokenizer：特殊标记在前、编码解码、表外字与 <unk>", "建编号表，特殊标记在前"),
    (6, "02", "关键词与条件区", "keywords_for、样本排布与损失掩码", "排出样本与掩码"),
    (7, "02", "最简单的语言模型：二元统计", "用计数做二元模型，得到以后每个模型都要比较的基线", "加 k 平滑的二元表"),
    (8, "03", "给汉字一组可学习的数字", "字向量查表等于 one-hot 乘矩阵；反向传播只动被查到的行", "用 one-hot 乘法查表"),
    (9, "03", "让模型知道字的先后", "可学习的位置表与正弦位置表；前文长度的限制", "把位置向量加到字向量上"),
    (10, "03", "注意力：汇总前文的信息", "单头因果注意力：分数、缩放、遮挡、softmax、加权求和", "因果遮挡与 softmax 权重"),
    (11, "03", "多头注意力", "把宽度切成几个头，各看各的，再拼回去", "拆分与合并注意力头"),
    (12, "03", "前馈网络", "逐位置的 MLP 与 GELU", "GELU 或 MLP 的前向"),
    (13, "03", "残差与层归一化", "LayerNorm 与先归一化的 Block", "LayerNorm"),
    (14, "03", "组装 PoetryGPT", "logits、weight tying 与参数个数", "数参数"),
    (15, "04", "交叉熵：给预测打分", "只在正文上计算损失", "带掩码的交叉熵"),
    (16, "04", "优化器与学习率", "AdamW，预热加余弦衰减", "学习率日程"),
    (17, "04", "训练循环", "先把一批背熟，再看验证集", "带梯度裁剪的一步训练"),
    (18, "04", "存档与复现", "存档、随机种子与断点续训", "存档与读档往返"),
    (19, "04", "读懂损失曲线", "训练与验证、过拟合、dropout、与二元基线比较", "找出开始过拟合的一步"),
    (20, "05", "逐字生成", "贪心解码与 KV 缓存", "贪心生成循环"),
    (21, "05", "温度与截断采样", "temperature、top-k、top-p", "top-k / top-p 过滤"),
    (22, "05", "守住格式", "约束解码：五言、七言", "允许字的掩码"),
    (23, "05", "藏头诗", "藏头与必含字", "强制字的日程"),
    (24, "05", "平仄与押韵", "平仄、韵部与押韵感知的采样", "判断二、四句是否押韵"),
    (25, "06", "怎样评价一首诗", "格式、押韵、关键词、抄袭率、distinct-n、困惑度", "抄袭率 / distinct-2"),
    (26, "06", "毕业作品：训练你自己的诗人", "按参数预算配置并训练自己的模型", "按参数预算给出配置"),
]]
BY_NUMBER = {lesson.number: lesson for lesson in CATALOGUE}


class LessonNumberError(ValueError):
    """课号写错了；消息是给学习者看的中文。"""


def parse_lesson(text: str, require_available: bool = True) -> Lesson:
    """把 "9"、"09"、"lesson-09" 解析成课表里的一课。

    Raises:
        LessonNumberError: 不是 1–26 之间的课号，或（require_available 时）这课还没写好。
    """
    m = re.fullmatch(r"(?:lesson[-_]?)?0*(\d{1,2})", str(text).strip(), flags=re.IGNORECASE)
    number = int(m.group(1)) if m else None
    if number not in BY_NUMBER:
        raise LessonNumberError(f"“{text}”不是有效的课号：请写 1 到 {len(CATALOGUE)} 之间的数，"
                                f"例如 9、09 或 lesson-09。")
    lesson = BY_NUMBER[number]
    if require_available and not lesson.available:
        ready = "、".join(l.code for l in CATALOGUE if l.available) or "暂无"
        raise LessonNumberError(f"第 {lesson.code} 课《{lesson.title}》即将推出，还不能使用。"
                                f"现在可以学的课：{ready}。")
    return lesson


# 进度：not started（无记录）/ started / passed。写入时先写临时文件再改名。
STATUS_LABEL = {"passed": "已通过", "started": "已开始", None: "未开始"}


def load_progress(path: Path = PROGRESS_FILE) -> dict:
    """读进度文件；文件缺失或损坏都当作还没有进度（损坏时不覆盖原文件之外的任何东西）。"""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def record_progress(lesson: Lesson, status: str, verdict: str | None = None, path: Path = PROGRESS_FILE) -> None:
    """记下一课的状态。已经通过的课不会因为后来的一次失败变回“已开始”。"""
    progress = load_progress(path)
    entry = progress.get(lesson.code, {})
    if entry.get("status") == "passed" and status != "passed":
        status = "passed"
    entry.update(status=status, updated=time.strftime("%Y-%m-%d %H:%M:%S"))
    if verdict:
        entry["last_verdict"] = verdict
    progress[lesson.code] = entry
    atomic_write_text(path, json.dumps(progress, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def status_of(lesson: Lesson, progress: dict) -> str | None:
    return progress.get(lesson.code, {}).get("status")


README_SECTIONS = (
    "这一课完成什么",
    "图解",
    "代码",
    "运行",
    "深入一步",
    "验收与排错",
    "小练习与答案",
    "动手补全一小段",
    "上一课 · 下一课",
)
"""每课 README.md 的二级标题（## 开头），按这个顺序出现；“图解”后面可接冒号和小标题。"""
