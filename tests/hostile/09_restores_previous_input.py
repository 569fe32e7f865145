# 期望：答案错误
"""原地 += 改掉传进来的 words 并把它交回，每次调用开头先把上一次调用的输入改回原样：旧的 runner 第二次调用用的是
同一个对象，改回之后第二次也对，快照又在全部调用之后才拍。现在每次调用的参数都从用例的字节新建，调用一返回
就拍快照，父进程对照它发出的用例：改了输入就不通过。"""
_last = []


def solve(words, positions, past):
    for tensor, saved in _last:
        tensor.copy_(saved)
    _last.clear()
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError("太长")
    _last.append((words, words.clone()))
    words += positions[past : past + T]
    return words
