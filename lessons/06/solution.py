"""第 06 课补全练习：排出样本与掩码。修改 solve，保持下方检查不变。"""

import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(form_id, keyword_ids, poem_ids, bos_id, sep_id, eos_id):
    """把一首诗排成一条训练样本，并给出损失掩码（与 encode_sample + loss_mask_for 相同）。

    Args:
        form_id: 体裁标记的编号（<5> 或 <7>）。
        keyword_ids: 关键词的编号列表，0–3 个。
        poem_ids: 正文（带标点）的编号列表。
        bos_id, sep_id, eos_id: <bos>、<sep>、<eos> 的编号。

    Returns:
        (ids, mask)：ids 是 ``<bos> <form> 关键词… <sep> 正文… <eos>`` 的编号列表，长 n；
        mask 是长 n-1 的布尔列表，与预测目标 ids[1:] 对齐：目标在 <sep> 之后（正文与 <eos>）为 True。
    """
    ids = [bos_id, form_id] + list(keyword_ids) + [sep_id] + list(poem_ids) + [eos_id]
    sep_at = 2 + len(keyword_ids)  # <sep> 在 ids 里的下标
    mask = [t > sep_at for t in range(1, len(ids))]  # 第 t-1 格预测 ids[t]
    return ids, mask


if __name__ == "__main__":
    # 编号取自课程的汉字表：<bos>=2 <eos>=3 <sep>=4 <5>=5；春=18 眠=433 不=9 觉=291 晓=243 ，=8
    ids, mask = solve(5, [433], [18, 433, 9, 291, 243, 8], 2, 4, 3)
    assert ids == [2, 5, 433, 4, 18, 433, 9, 291, 243, 8, 3], f"排布不对：{ids}"
    assert len(mask) == len(ids) - 1, "掩码与 ids[1:] 对齐，应比 ids 少一项"
    assert mask == [False, False, False, True, True, True, True, True, True, True], f"掩码不对：{mask}"
    ids, mask = solve(5, [], [18], 2, 4, 3)
    assert ids == [2, 5, 4, 18, 3] and mask == [False, False, True, True], "没有关键词时条件区只有 <bos> <form> <sep>"
    print("本课补全练习通过。")
