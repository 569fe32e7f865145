"""poet 命令行，按使用的人分成几个房间：

- learner.py：学习者（地图、lesson、start、check、hint、solution、diff、progress、doctor）
- model_cmds.py：模型（train、write、eval）
- teacher.py：老师（grade）
- maintainer.py：维护者（verify、site）

parser.py 是说中文的解析器和每种数值参数的 type；display.py 是全部屏幕输出；main.py 把它们装在一起。
"""
from .main import build_parser, main, run

__all__ = ["build_parser", "main", "run"]
