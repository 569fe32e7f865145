# 期望：答案错误
"""返回包含自己的列表。"""
def solve(*args):
    out = []
    out.append(out)
    return out
