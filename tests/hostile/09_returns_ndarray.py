# 期望：答案错误
"""返回 numpy 数组（或没有 numpy 时的 memoryview）：消息里写出真实类型。"""
def solve(words, positions, past=0):
    try:
        return words.numpy()
    except Exception:
        return memoryview(b"x")
