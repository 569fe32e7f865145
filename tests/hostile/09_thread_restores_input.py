# 期望：答案错误
"""原地 += 改掉传进来的 words、交回一份副本，再开一个线程在 solve 返回之后把 words 改回原样，想赶在批改程序
拍快照之前改完。solve 返回时还有别的线程在运行，就不通过。"""
import threading
import time


def _restore(tensor, saved):
    time.sleep(0.001)
    tensor.copy_(saved)


def solve(words, positions, past):
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError("太长")
    saved = words.clone()
    words += positions[past : past + T]
    threading.Thread(target=_restore, args=(words, saved)).start()
    return words.clone()
