# 期望：答案错误
"""该 raise ValueError 的用例上不 raise，而是返回一个长得像“raise 了”的记录：返回值冒充不了 raise。"""
import torch


def solve(words, positions, past):
    T = words.shape[1]
    if past + T > positions.shape[0]:
        return {"raised": "ValueError"}
    return words + positions[past : past + T]


if __name__ == "__main__":
    assert torch.equal(solve(torch.zeros(1, 1, 2), torch.ones(3, 2), 0), torch.ones(1, 1, 2))
