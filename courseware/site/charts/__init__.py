"""课程网站的图（charts）：在构建网站时用仓库里的代码现算，画成内嵌 SVG，并配一段逐步的文字解读。

chart 在仓库里只指网站上的这些 SVG 图；figures 指课文里的数（courseware/selfcheck/figures.py、results/、每课的 figures.toml）。

每张图的数和实验打印的数出自同一段计算：
- 第 01 课：张继《枫桥夜泊》按实验的取法（条件区加上最后一个汉字之前的正文）送进 base 预设尺寸的新建模型，每一段的形状；
- 第 02 课：李白《静夜思》四句的编号张量 [B, T] 与它往下的形状；
- 第 03 课：全部诗正文的字频，按次数排好的前 n 个字覆盖正文的比例；
- 第 04 课：lessons/04/bad_records.json 的 14 条原始记录逐条交给 data.clean_record，每一步剔除几条、为什么；
- 第 05 课：发布的汉字表的前 13 个编号与最后一个，Tokenizer.counts 记下的训练集次数；
- 第 06 课：孟浩然《春晓》的样本（encode_sample、make_batch）每一格的输入、目标与损失掩码；
- 第 07 课：训练集里“明”后面跟过的字，加 k 平滑（bigram.DEFAULT_K）后的概率；
- 第 08 课：与第 08 课实验同样的种子与新建模型，“春风月”的 one-hot 行乘字向量表；
- 第 09 课：与 lessons/09/experiment.py 同样的种子、汉字表和新建模型，“春风月”的字向量、位置行与它们的和；
- 第 10、11 课：随课程发布的模型 data/model.pt 第 0 层的注意力权重（poetry_gpt.probes.attention_weights，
  两课的实验也调用它），按 probes.previous_position_weight 挑头（与第 10 课实验相同）；
- 第 12 课：torch 的 F.gelu 与 F.relu 在 [-3, 3] 上的曲线，点出实验表里的 x；
- 第 13 课：与实验同样的种子、新建模型与 8 首 val 诗，残差流穿过各个 Block 的标准差、第一层的修改有多大；
- 第 14 课：默认配置新建模型的 parameter_counts()，与实验的参数表同一个函数；
- 第 15 课：发布模型读 val 第一首诗，实验里那一格的概率与 −ln p(答案)；
- 第 16 课：train.learning_rate 按 base 预设算的学习率日程；
- 第 17 课：tiny 预设第 0 步（batch_indices、scored_loss、clip_grad_norm_）与实验第 3 部分第 0 步被裁剪的总范数；
- 第 18 课：实验的 16 步小训练，不中断与第 8 步停下再续训（train(stop_at=8)、resume=True）的损失，
  少放回优化器或随机数状态时的岔开（train.resume_without），第 8 步存档里各部分的大小（checkpoint.stored_sizes）；
- 第 19 课：发布模型存档里记下的训练与验证损失（metrics.loss_curves）；
- 第 20 课：发布模型从 <bos> <5> 月 <sep> 贪心地写，每一步整段重算与 KV 缓存要送进模型的位置；
- 第 21 课：发布模型种子 26 那首诗的同一步，温度、top-k、top-p 之前与之后（sampling.filter_logits）；
- 第 22 课：种子 0 那首五言每一格允许的字占模型多少概率（constraints.Constraint、probes.next_token_logits）；
- 第 23 课：藏头诗“春夏秋冬”每句第 0 格，模型本来给藏头字多少概率（probes.next_token_logits，实验也调用它）；
- 第 24 课：《山行》逐字对照最合的平仄格式（prosody.tone_report、quatrain_rhyme）；
- 第 25 课：记下的 ./poet eval（results/eval.json、eval-plain.json）里押韵、平仄、粘对、重复几行，模型对照人写；
- 第 26 课：每个参数预算选出的宽度，参数分成字向量表、位置表与 Block（在 meta 设备上建模型数参数）。

画图函数按课程的各部分分在几个模块里，共用的画法在 draw；一课的图由哪个模块画，写在课表
lessons/manifest.toml 这一课的 chart 里（函数叫 lessonNN），:func:`chart_drawer` 按它找。
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from courseware.catalogue import Lesson, ManifestError

from .draw import Chart


def chart_drawer(lesson: Lesson) -> Callable[[], Chart] | None:
    """画这一课网页上那张图的函数：课表里 chart 指的模块里的 lessonNN；课表没写 chart 时为 None。

    Raises:
        ManifestError: chart 指的模块不在这里，或模块里没有这一课的函数。
    """
    if not lesson.chart:
        return None
    name = f"{__name__}.{lesson.chart}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        raise ManifestError(f"课表里第 {lesson.code} 课的 chart 是 {lesson.chart!r}：courseware/site/charts/ 里没有这个模块。")
    draw = getattr(module, f"lesson{lesson.code}", None)
    if not callable(draw):
        raise ManifestError(
            f"课表里第 {lesson.code} 课的 chart 是 {lesson.chart!r}：courseware/site/charts/{lesson.chart}.py 里没有 lesson{lesson.code}。"
        )
    return draw
