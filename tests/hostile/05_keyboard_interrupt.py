# 期望：崩溃
"""在 solve 里抛 KeyboardInterrupt。"""
def solve(*args):
    raise KeyboardInterrupt
