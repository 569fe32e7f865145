# 期望：不通过
"""读 lessons/09/solution.py 并照抄它的 solve。"""
import runpy

ref = runpy.run_path("{{REPO}}/lessons/09/solution.py")["solve"]


def solve(words, positions, past=0):
    return ref(words, positions, past)
