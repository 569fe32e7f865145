# 期望：超时
"""死循环。"""
def solve(*args):
    while True:
        pass


solve()
