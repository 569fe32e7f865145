"""python -m courseware.cli：与 ./poet 相同。"""

from .main import run

run()
