"""本课独立实验；在仓库根目录执行 .venv/bin/python lessons/02/experiment.py。"""

import torch
from torch import nn

from poetry_gpt.data import default_tokenizer, load_poems, split_lines
from poetry_gpt.labs import setup_experiment, show, table

setup_experiment()

tok = default_tokenizer()
poem = next(p for p in load_poems() if p["title"] == "静夜思" and p["author"] == "李白")
lines = split_lines(poem["text"])  # 4 句，每句 5 个字
ids = torch.tensor([tok.encode(line) for line in lines])  # [B=4, T=5]
B, T = ids.shape
show("诗", f"{poem['author']}《{poem['title']}》{poem['text']}")

# 1. 编号张量 [B, T]：一行一句，一格一个字的编号
show("ids 的形状 [B, T]", list(ids.shape))
show("ids 的 dtype", ids.dtype)
table(
    ["b", "这一行的编号", "解码回来"],
    [[b, ids[b].tolist(), tok.decode(ids[b])] for b in range(B)],
    title="ids：每一行是一句诗",
)

# 2. 索引：取一行、取一列、取一格、错开一格
show("ids[0]（第 1 句）形状", list(ids[0].shape))
show("ids[:, 0]（每句第 1 个字）", tok.decode(ids[:, 0]))
show("ids[:, -1]（每句最后一个字）", tok.decode(ids[:, -1]))
show("ids[3, 4]（一格，0 维张量）", f"{ids[3, 4].item()} → {tok.decode([ids[3, 4]])}，形状 {list(ids[3, 4].shape)}")
x_in, y_out = ids[:, :-1], ids[:, 1:]  # 读前 T-1 个、预测后 T-1 个（第 06 课的排布）
show("输入 ids[:, :-1] 第 0 行", tok.decode(x_in[0]))
show("目标 ids[:, 1:] 第 0 行", tok.decode(y_out[0]))

# 3. 查表得到 [B, T, C]；位置表 [T, C] 与偏置 [C] 靠广播加上去
C = 8
characters = nn.Embedding(len(tok), C)  # [V, C]：每个字一行
positions = nn.Embedding(T, C)  # [T, C]：每个位置一行
with torch.no_grad():
    x = characters(ids)  # [B, T, C]
    pos = positions(torch.arange(T))  # [T, C]
    bias = torch.arange(C, dtype=torch.float32)  # [C]
    table(
        ["算式", "结果形状"],
        [
            ["characters(ids)", list(x.shape)],
            ["x + pos   [B,T,C] + [T,C]", list((x + pos).shape)],
            ["x + bias  [B,T,C] + [C]", list((x + bias).shape)],
            ["x + x[:, :1]  [B,T,C] + [B,1,C]", list((x + x[:, :1]).shape)],
            ["x.mean(-1, keepdim=True)", list(x.mean(-1, keepdim=True).shape)],
        ],
        title="广播：从右往左对齐，缺的维度或长度为 1 的维度被复制",
    )
    show("x[0, 3] 与 x[2, 4] 都是“月”：字向量相同", torch.equal(x[0, 3], x[2, 4]))
    show("加上位置表之后还相同", torch.equal((x + pos)[0, 3], (x + pos)[2, 4]))
    show("每一句加的是同一张位置表", all(torch.allclose((x + pos)[b] - x[b], pos) for b in range(B)))
    try:
        x + torch.zeros(B, C)  # [4,5,8] + [4,8]：右起第 2 维 5 对 4
    except RuntimeError:
        show("[4, 5, 8] + [4, 8]", "报错：从右往左第 2 维是 5 对 4，既不相等也不是 1，无法广播")

    # 4. 输出层：[B, T, C] 乘 [C, V] 得到每个位置对每个字的分数 [B, T, V]
    logits = x @ characters.weight.T  # [B, T, V]
    show("logits 形状 [B, T, V]", list(logits.shape))
    show("logits 占用（字节）", logits.numel() * logits.element_size())
    flat = logits.reshape(B * T, -1)  # cross_entropy 要 [N, V] 与 [N]
    show("摊平成 [B*T, V]", list(flat.shape))
    show("摊平后第 5 行就是 logits[1, 0]", torch.equal(flat[T], logits[1, 0]))

    # 5. view 与 reshape：什么时候共用内存，什么时候复制
    same = lambda a, b: a.data_ptr() == b.data_ptr()
    flat_x = x.view(B * T, C)
    xt = x.transpose(1, 2)  # [B, C, T]：只改步长，不搬数据
    rows = [
        ["x", list(x.shape), list(x.stride()), x.is_contiguous(), "—"],
        ["x.view(B*T, C)", list(flat_x.shape), list(flat_x.stride()), flat_x.is_contiguous(), same(flat_x, x)],
        ["xt = x.transpose(1, 2)", list(xt.shape), list(xt.stride()), xt.is_contiguous(), same(xt, x)],
    ]
    try:
        xt.view(B, C * T)
    except RuntimeError:
        rows.append(["xt.view(B, C*T)", "报错", "—", "—", "—"])
    flat_t = xt.reshape(B, C * T)
    rows.append(
        ["xt.reshape(B, C*T)", list(flat_t.shape), list(flat_t.stride()), flat_t.is_contiguous(), same(flat_t, x)]
    )
    rows.append(
        ["x.reshape(B*T, C)", [B * T, C], list(x.reshape(B * T, C).stride()), True, same(x.reshape(B * T, C), x)]
    )
    table(["写法", "形状", "步长 stride", "连续", "与 x 共用内存"], rows, title="view 不复制；reshape 只在必须时复制")

    # 内存布局图：一个 2×3 的小张量 a，转置前后内存里的数与按行读出的数
    a = torch.arange(6).view(2, 3)
    spaced = lambda t: " ".join(map(str, t.tolist()))
    memory = lambda t: spaced(t.as_strided((t.untyped_storage().nbytes() // t.element_size(),), (1,), 0))
    table(
        ["写法", "形状", "步长", "内存", "按行读", "共用内存"],
        [
            [name, list(t.shape), list(t.stride()), memory(t), spaced(t.flatten()), same(t, a)]
            for name, t in (("a", a), ("a.T", a.T), ("a.T.reshape(6)", a.T.reshape(6)))
        ],
        title="转置只改步长，内存不动；reshape 复制成新的一块",
    )
    flat_x[0, 0] = 100.0  # 改视图就是改原张量
    show("改 view 的一格后 x[0, 0, 0]", x[0, 0, 0].item())

    # 第 11 课拆分注意力头就是 view + transpose；注意力算出的是一块新的连续张量，
    # 拼回 [B, T, C] 时先 transpose 再 reshape，这一步才真正复制
    H = 2
    heads = x.view(B, T, H, C // H).transpose(1, 2)  # [B, H, T, C/H]，不复制
    out = heads.contiguous()  # 代替注意力的计算：一块新的连续内存 [B, H, T, C/H]
    merged = out.transpose(1, 2).reshape(B, T, C)  # [B, T, C]
    table(
        ["一步", "形状", "连续", "与上一步共用内存"],
        [
            ["heads（view 后 transpose）", list(heads.shape), heads.is_contiguous(), same(heads, x)],
            [
                "out.transpose(1, 2)",
                list(out.transpose(1, 2).shape),
                out.transpose(1, 2).is_contiguous(),
                same(out.transpose(1, 2), out),
            ],
            ["  .reshape(B, T, C)", list(merged.shape), merged.is_contiguous(), same(merged, out)],
        ],
        title="拆头与拼回（第 11 课）",
    )

# 6. dtype 与 device
table(
    ["张量", "dtype", "每个数占字节", "device"],
    [
        ["ids", ids.dtype, ids.element_size(), ids.device],
        ["x（字向量）", x.dtype, x.element_size(), x.device],
        ["ids != 0（掩码）", (ids != 0).dtype, (ids != 0).element_size(), ids.device],
        ["x.half()", x.half().dtype, x.half().element_size(), x.device],
    ],
    title="dtype 与 device",
)
try:
    characters(ids.float())
except RuntimeError:
    show("用 float 编号查表", "报错：查表的编号必须是整数（long 或 int）")
show("本机有可用的 GPU（cuda）", torch.cuda.is_available())
show("ids.to('cpu') 是不是同一个张量", ids.to("cpu") is ids)
