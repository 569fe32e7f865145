# 期望：未完成
"""solve 不是函数。"""
solve = 3
