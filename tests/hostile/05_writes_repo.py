# 期望：不通过
"""往仓库里写文件、改参考答案和批改程序。"""
import os

for path in ("{{REPO}}/lessons/05/solution.py", "{{REPO}}/courseware/grading/checking.py", "{{REPO}}/evil.txt"):
    with open(path, "a", encoding="utf-8") as f:
        f.write("\n# 来过\n")


def solve(*args):
    return []
