"""poet 命令行，按使用的人分成几个房间：

- learner.py：学习者（地图、lesson、start、check、hint、solution、diff、progress、doctor）
- model_cmds.py：模型（train、write、eval）
- teacher.py：老师（grade）
- maintainer.py：维护者（verify、site）

parser.py 是说中文的解析器和每种数值参数的 type；display.py 是屏幕输出（poet 的 console、终端的种种、
学习者看的各屏），tables.py 是评估表、总检查表与成绩表；房间只导入这三个，不互相导入；main.py 把它们装在一起。
"""

from .main import build_parser, main, run

__all__ = ["build_parser", "main", "run"]
