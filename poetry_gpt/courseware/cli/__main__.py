"""python -m poetry_gpt.courseware.cli：与 ./poet 相同。"""

from .main import run

run()
