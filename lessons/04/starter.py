"""第 04 课补全练习：统一标点。修改 solve，保持下方检查不变。"""
import torch

torch.set_num_threads(2)
torch.manual_seed(26)

def solve(text):
    """把一段诗文里的标点统一成全角的 ，。？！。

    半角 , . ? ! 换成对应的全角 ，。？！；半角 ; : 与全角 ；：、 都换成 ，。
    其他字符（汉字、已是全角的 ，。？！、括号等）原样保留，长度不变。

    Args:
        text: 任意字符串。

    Returns:
        换好标点的字符串。
    """
    raise NotImplementedError("请补全 solve，然后运行 ./poet check 4 检查；卡住时运行 ./poet hint 4 看提示。")


if __name__ == "__main__":
    assert solve("床前看月光,疑是地上霜.") == "床前看月光，疑是地上霜。", "半角 , . 应换成全角 ，。"
    assert solve("举头望山月;低头思故乡!") == "举头望山月，低头思故乡！", "; 应换成 ，，! 应换成 ！"
    assert solve("何处?") == "何处？", "? 应换成 ？"
    assert solve("：；、:") == "，，，，", "冒号、分号、顿号都换成 ，"
    assert solve("春眠不觉晓，处处闻啼鸟。") == "春眠不觉晓，处处闻啼鸟。", "已经是全角的标点不要动"
    assert solve("紫绂（一作绶）") == "紫绂（一作绶）", "括号不归这一步管，原样保留（clean_record 随后会因括注剔除整首）"
    assert solve("") == "", "空字符串原样返回"
    print("本课补全练习通过。")
