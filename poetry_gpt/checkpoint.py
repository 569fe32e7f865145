"""模型存档（第 18 课）：保存、读取与检查、数各部分的大小、建好模型、导出随课程发布的形式。

读模型只需要这个模块，不必导入训练循环：``./poet write``、``./poet eval``、各课实验都从这里读。
存档是只含张量、数、字符串、列表与字典的 dict，用 ``torch.load(weights_only=True)`` 读，不执行存档里的任何代码；
写入先写临时文件再改名（原子写入）。
"""

from __future__ import annotations

import io
import random
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path

import torch

from .common import DEFAULT_DATA, atomic_write_bytes
from .data import Tokenizer, default_tokenizer
from .model import ModelConfig, PoetryGPT

SHIPPED_MODEL = DEFAULT_DATA / "model.pt"
"""随课程发布的模型（fp16 权重，不含优化器状态）。"""

CHECKPOINT_NAME = "checkpoint.pt"
"""``./poet train --out 目录`` 在目录里写的存档文件名。"""

FORMAT = "poetry_gpt/1"
"""存档的格式名；改了存档的结构就换一个，读的时候同时改。"""

PARTS = {"weights": dict, "model_config": dict, "vocab_hash": str, "step": int, "train_config": dict, "log": list}
"""每个存档都有的部分与它们的类型。"""


class CheckpointError(ValueError):
    """存档缺失、损坏、不是本课程的存档，或与当前汉字表不配套；消息是给学习者看的中文。"""


def save_checkpoint(
    path: str | Path,
    model: PoetryGPT,
    tokenizer: Tokenizer,
    *,
    optimizer=None,
    step: int = 0,
    config=None,
    log: list | None = None,
    sittings: list | None = None,
    half: bool = False,
) -> None:
    """原子写入一个存档（先写临时文件再改名，写到一半被打断也不会留下半个文件）。

    存档含 weights、model_config、vocab_hash、step、train_config、log，训练中的存档还有 optimizer、rng
    与 sittings（分几次训练时每一次的记录，poetry_gpt.sittings）。

    Args:
        config: 训练设置（``TrainConfig`` 或同样内容的 dict），续训时要用；None 时存空 dict。
        half: 为真时权重存成 fp16、不带优化器（随课程发布的模型这样存，约小一半）。
    """
    converted: dict[int, torch.Tensor] = {}
    weights = {}
    for k, v in model.state_dict().items():
        # characters 与 head 是同一张表（weight tying）：只转换一次，torch.save 就只存一份
        if v.data_ptr() not in converted:
            converted[v.data_ptr()] = (v.half() if half and v.is_floating_point() else v).detach().cpu()
        weights[k] = converted[v.data_ptr()]
    state = {
        "format": FORMAT,
        "weights": weights,
        "model_config": model.config.to_dict(),
        "vocab_hash": tokenizer.vocab_hash,
        "step": step,
        "train_config": asdict(config) if is_dataclass(config) else dict(config or {}),
        "log": list(log or []),
    }
    if optimizer is not None and not half:
        state["optimizer"] = optimizer.state_dict()
        state["rng"] = {"torch": torch.get_rng_state(), "python": list(random.getstate()[1])}
        state["sittings"] = list(sittings or [])
    buffer = io.BytesIO()
    torch.save(state, buffer)
    atomic_write_bytes(path, buffer.getvalue())


def checkpoint_file(path: str | Path) -> Path:
    """存档文件本身；path 是训练用的文件夹（``./poet train --out`` 的那个）时取其中的 checkpoint.pt。

    Raises:
        CheckpointError: 文件夹里没有存档，或文件不存在。
    """
    path = Path(path)
    if path.is_dir():
        if not (path / CHECKPOINT_NAME).is_file():
            raise CheckpointError(
                f"{path} 是一个文件夹，里面没有 {CHECKPOINT_NAME}；请给存档文件本身，例如 runs/tiny/{CHECKPOINT_NAME}"
            )
        path = path / CHECKPOINT_NAME
    if not path.is_file():
        raise CheckpointError(f"找不到模型存档：{path}。可以先训练一个：./poet train --preset tiny")
    return path


def validate_checkpoint(state, path: str | Path, tokenizer: Tokenizer | None = None) -> dict:
    """检查 torch.load 读出的内容是本课程的存档、各部分齐全，并且与当前汉字表配套。返回 state 本身。

    汉字表指纹相同还不够：还要 model_config 是一组能建出模型的尺寸、vocab_size 等于当前汉字表的大小、
    weights 里的名字与形状和按 model_config 建出的模型一一相同——否则写诗时才会在 torch 深处出错。
    （比较用的模型建在 CPU 上，约 20 毫秒；建它用的随机数不影响 torch 的全局随机数状态。）

    Raises:
        CheckpointError: 不是本课程的存档、缺少或损坏了某部分，汉字表指纹与当前 data/vocab.json 不同，
            或权重的形状与它记录的尺寸、与汉字表的大小对不上。
    """
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path} 不是本课程的模型存档")
    broken = [k for k, kind in PARTS.items() if not isinstance(state.get(k), kind)]
    if broken:
        raise CheckpointError(f"{path} 缺少或损坏了这些部分：{'、'.join(broken)}，不能使用")
    tokenizer = tokenizer or default_tokenizer()
    if state["vocab_hash"] != tokenizer.vocab_hash:
        raise CheckpointError(
            f"{path} 是用另一张汉字表训练的（指纹 {state['vocab_hash']}，"
            f"当前 data/vocab.json 是 {tokenizer.vocab_hash}），字的编号对不上，不能使用"
        )
    config, weights = state["model_config"], state["weights"]
    if config.get("vocab_size") != len(tokenizer):
        raise CheckpointError(
            f"{path} 记录的汉字表大小 vocab_size 是 {_short(config.get('vocab_size'))}，当前 "
            f"data/vocab.json 有 {len(tokenizer)} 个字，对不上，不能使用（存档损坏或被改过）"
        )
    # 先对最大的两张表和层数：尺寸都来自真有的张量，一个写着 10 亿层或 10 亿宽的坏存档不会在下面建模型时耗尽内存
    width, length = config.get("width"), config.get("context_length")
    _check_weight(path, weights, "characters.weight", (len(tokenizer), width))
    _check_weight(path, weights, "positions.weight", (length, width))
    layers = {k.split(".")[1] for k in weights if isinstance(k, str) and k.startswith("blocks.") and k.count(".") > 1}
    try:
        if config.get("n_layers") != len(layers):
            raise ValueError
        with torch.random.fork_rng(devices=[]):
            expected = {k: tuple(v.shape) for k, v in PoetryGPT(ModelConfig(**config)).state_dict().items()}
    except (TypeError, ValueError, RuntimeError, OverflowError):
        raise CheckpointError(
            f"{path} 里记录的模型尺寸 model_config 损坏了（{_short(config)}），建不出模型，不能使用"
        ) from None
    if set(weights) != set(expected):
        odd = sorted(map(str, set(weights) ^ set(expected)))
        raise CheckpointError(
            f"{path} 里的权重名字与它记录的模型尺寸对不上（多出或缺少 {_short('、'.join(odd))}），不能使用"
        )
    for name, shape in expected.items():
        _check_weight(path, weights, name, shape)
    return state


def _check_weight(path, weights: dict, name: str, shape: tuple) -> None:
    got = weights.get(name)
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != shape:
        what = f"形状是 {list(got.shape)}" if isinstance(got, torch.Tensor) else "缺失" if got is None else "不是张量"
        raise CheckpointError(
            f"{path} 里的权重 {name} {what}，按它记录的模型尺寸应是 {_short(list(shape))}，"
            "对不上，不能使用（存档损坏或被改过）"
        )


def _short(value, limit: int = 120) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _raw_pickle(path: Path) -> bool:
    """文件以 pickle 的协议标记（0x80 加协议号 2–5）开头、却不是 torch 旧格式的魔数：不是 torch.save 写的
    （新格式是 zip，旧格式以 pickle 写的魔数 0x1950a86a20f9469cfc6c 开头）。读不了时为 False（交给 torch.load 报错）。"""
    try:
        with open(path, "rb") as f:
            head = f.read(2 + len(_LEGACY_MAGIC))
    except OSError:
        return False
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5 and head[2:] != _LEGACY_MAGIC


_LEGACY_MAGIC = b"\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little")


def read_checkpoint(path: str | Path, tokenizer: Tokenizer | None = None) -> dict:
    """读一个存档（``weights_only=True``）并用 :func:`validate_checkpoint` 检查它。

    path 也可以是训练用的文件夹，这时读其中的 checkpoint.pt。

    Raises:
        CheckpointError: 文件不存在、被截断或损坏，或通不过 :func:`validate_checkpoint`。
    """
    path = checkpoint_file(path)
    if _raw_pickle(path):  # torch.save 写的是 zip：开头就是 pickle 的，是别的程序直接 pickle.dump 出来的
        raise CheckpointError(
            f"{path} 是一个普通的 pickle 文件，不是 torch.save 写的模型存档；"
            "为了安全不读它（pickle 能执行任意代码）。请用 ./poet train 训练出的存档"
        )
    try:
        with warnings.catch_warnings():  # torch 对不认识的 pickle 协议印英文警告：坏存档由下面的中文说明
            warnings.simplefilter("ignore")
            state = torch.load(path, map_location="cpu", weights_only=True)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # 随便一个文件都可能让解包器抛出任何异常（如 KeyError）：一律当作坏存档
        if "GLOBAL" in str(e):  # 完整的 pickle，但要调用张量、数、字符串、列表、字典以外的对象
            raise CheckpointError(
                f"{path} 里有存档不该有的对象（读它可能会执行文件里的代码），"
                "为了安全不读；只有信得过的来源才能用 weights_only=False 打开"
            ) from None
        raise CheckpointError(f"{path} 不是完整的模型存档（可能没下载完、被截断或已损坏）") from None
    return validate_checkpoint(state, path, tokenizer)


def load_model(
    path: str | Path = SHIPPED_MODEL, tokenizer: Tokenizer | None = None, device: str | torch.device = "cpu"
) -> tuple[PoetryGPT, dict]:
    """读存档并建好模型（fp32，eval 模式），返回 (模型, 存档内容)。

    Raises:
        CheckpointError: 同 :func:`read_checkpoint`；另外权重装不进模型（如数据类型不对），或权重里有 NaN、无穷大。
    """
    state = read_checkpoint(path, tokenizer)
    try:
        model = PoetryGPT(ModelConfig(**state["model_config"]))
        model.load_state_dict({k: v.float() for k, v in state["weights"].items()})
    except (RuntimeError, TypeError, ValueError, AttributeError):
        raise CheckpointError(f"{path} 里的权重与它记录的模型尺寸对不上") from None
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise CheckpointError(f"{path} 的权重里有 NaN 或无穷大（训练发散了？），不能用来写诗或评估")
    return model.to(device).eval(), state


@dataclass(frozen=True)
class StoredSizes:
    """存档里的权重与优化器状态有多大（:func:`stored_sizes`，第 18 课）。"""

    tensors: int  # 不重复的权重张量个数：head 与 characters 共用一张表，只算一次
    parameters: int  # 这些张量里数的个数（= 模型的 num_parameters()）
    weight_bytes: int  # 这些张量占的字节：个数 × 每个数的字节（fp32 是 4，fp16 是 2）
    optimizer_bytes: int  # 优化器状态里非标量张量（AdamW 的 exp_avg、exp_avg_sq）占的字节；没有优化器时为 0


def stored_sizes(state: dict) -> StoredSizes:
    """数一数存档 state（:func:`read_checkpoint` 读出的 dict）里权重与优化器状态的大小。

    共用的表在存档里只存一份（读回来仍是同一个张量），所以按张量本身去重再数。
    优化器状态里每个参数的 ``step`` 是标量，不算进字节。

    Raises:
        KeyError: state 里没有 weights（不是存档读出的 dict）。
    """
    unique = list({id(t): t for t in state["weights"].values()}.values())
    optimizer = state.get("optimizer", {"state": {}})
    moments = [v for s in optimizer["state"].values() for v in s.values() if torch.is_tensor(v) and v.dim() > 0]
    return StoredSizes(
        tensors=len(unique),
        parameters=sum(t.numel() for t in unique),
        weight_bytes=sum(t.numel() * t.element_size() for t in unique),
        optimizer_bytes=sum(t.numel() * t.element_size() for t in moments),
    )


def export_model(checkpoints: str | Path | Sequence[str | Path], out: str | Path = SHIPPED_MODEL) -> None:
    """把训练存档导出成随课程发布的形式：fp16 权重、配置、汉字表指纹、日志，不带优化器。

    给了同一次训练的几个存档时，导出它们权重的平均（checkpoint averaging）：学习率还不小时，相邻几个存档
    各自在损失的谷底附近来回，平均落得更靠近谷底，验证损失可以比其中任何一个都低（发布的模型就是这样导出的，
    见 data/MODEL.md）。步数、设置与日志取最后一个存档的。
    参考：Vaswani et al., "Attention Is All You Need", 2017（平均最后 5 个存档）；
    Izmailov et al., "Averaging Weights Leads to Wider Optima and Better Generalization", 2018。

    Raises:
        CheckpointError: 同 :func:`load_model`；几个存档的模型尺寸不同。
    """
    paths = [checkpoints] if isinstance(checkpoints, (str, Path)) else list(checkpoints)
    tokenizer = default_tokenizer()
    loaded = [load_model(path, tokenizer) for path in paths]
    model, state = loaded[-1]
    for path, (_, other) in zip(paths, loaded):
        if other["model_config"] != state["model_config"]:
            raise CheckpointError(f"{path} 的模型尺寸与 {paths[-1]} 不同，不能取平均")
    params = [dict(m.named_parameters()) for m, _ in loaded]  # 共用的表（weight tying）在这里只出现一次
    with torch.no_grad():
        for name, weight in params[-1].items():
            weight.copy_(torch.stack([p[name] for p in params]).mean(0))
    save_checkpoint(
        out, model, tokenizer, step=state["step"], config=state["train_config"], log=state["log"], half=True
    )
