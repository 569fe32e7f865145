"""第 10 课差分检查：随机形状、随机尺度的注意力分数，比较学习者与参考答案的 solve。"""
import torch

HINT = ("T = scores.shape[-1]。torch.ones(T, T, dtype=torch.bool).tril() 是下三角：第 t 行只有前 t+1 格为真。"
        "scores.masked_fill(~下三角, float('-inf')) 把后文的注意力分数换成负无穷，softmax 之后它们正好是 0。"
        "softmax 要在最后一维上做（dim=-1），这样每一行分给前文的权重加起来是 1。"
        "不要先 softmax 再把后文置 0——那样每行的和会小于 1。")


def cases(gen):
    """20 个用例：(scores,)，一半 [T, T]、一半 [B, T, T]，数值尺度从 0.1 到 10 不等。"""
    out = []
    for i in range(20):
        T = int(torch.randint(1, 10, (1,), generator=gen))
        shape = (T, T) if i % 2 == 0 else (int(torch.randint(1, 5, (1,), generator=gen)), T, T)
        scale = float(10 ** (torch.rand(1, generator=gen) * 2 - 1))
        out.append((torch.randn(*shape, generator=gen) * scale,))
    return out
