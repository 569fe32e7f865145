"""第 24 课补全练习：判断二、四句是否押韵，首句是否入韵。修改 solve，保持下方检查不变。"""
import torch

torch.set_num_threads(2)
torch.manual_seed(26)


def solve(poem, groups):
    """按平水韵判断一首绝句押不押韵（与 poetry_gpt.prosody.quatrain_rhyme 的规则相同）。

    句尾字：每句最后一个字；句子以 ，。？！ 之一结尾（四种都是句尾，？ 也是）。
    押韵：第二句与第四句的句尾字（从 0 数是第 1、3 句）有共同的韵部。一个字可以属于几个韵部
    （多音字，如 看：上平声十四寒、去声十五翰）：两个字只要有一个韵部相同就押韵，共同的韵部全部列出。
    仄韵（上声、去声、入声的韵部）也是韵。groups 里没有的字查不到韵部，不与任何字押韵。
    首句入韵：第一句的句尾字属于上面那些共同韵部中的某一个（只与第二句同韵还不算）。

    Args:
        poem: 一首绝句的全文，带标点，四句，如 "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"。
        groups: dict，字 → 这个字所属的韵部名的列表（按韵书次序），是从 data/rhymes.json 切出的这首诗用到的字。

    Returns:
        (shared, first_line)：shared 是 list[str]，第二、四句句尾字共同的韵部，按第二句句尾字的列表里的
        先后；不押韵时是空列表。first_line 是 bool，首句是否入韵。输入都不改动。
    """
    lines, line = [], ""
    for ch in poem:
        if ch in "，。？！":
            lines.append(line)
            line = ""
        else:
            line += ch
    first, second, _, fourth = (groups.get(line[-1], []) for line in lines)   # 查不到的字：空列表
    shared = [g for g in second if g in fourth]
    first_line = any(g in shared for g in first)
    return shared, first_line


if __name__ == "__main__":
    # 这一课要你自己查表、比韵部：调用课程包里现成的判断（prosody.quatrain_rhyme）就练不到这一步
    import re
    code = open(__file__, encoding="utf-8").read().split('if __name__ == "__main__":')[0]
    code = re.sub(r'"""[\s\S]*?"""', "", code)   # 文档字符串里提到的名字不算
    for shortcut in ("poetry_gpt", "prosody", "quatrain_rhyme", "share_rhyme", "rhymes.json"):
        assert shortcut not in code, (f"请不要用 {shortcut}：本课要你用传进来的 groups 自己查出句尾字的韵部、"
                                      "找共同的韵部——调用课程包里现成的判断，就练不到这一步")
    # 表的切片：从 data/rhymes.json 抄来的几个字
    table = {"斜": ["下平声六麻"], "家": ["下平声六麻"], "花": ["下平声六麻"], "晚": ["上声十三阮"],
             "丈": ["上声二十二养"], "长": ["下平声七阳", "上声二十二养", "去声二十三漾"], "霜": ["下平声七阳"],
             "里": ["上声四纸", "去声四寘"], "晓": ["上声十七筱"], "鸟": ["上声十七筱"], "声": ["下平声八庚"],
             "少": ["上声十七筱", "去声十八啸"], "欢": ["上平声十四寒"], "看": ["上平声十四寒", "去声十五翰"],
             "恨": ["去声十四愿"], "干": ["上平声十四寒", "下平声一先", "去声十五翰"], "语": ["上声六语", "去声六御"],
             "眉": ["上平声四支"], "色": ["入声十三职"], "时": ["上平声四支"], "回": ["上平声十灰", "去声十一队"],
             "衰": ["上平声四支"], "识": ["去声四寘", "入声十三职"], "来": ["上平声十灰"]}
    kept = {ch: list(g) for ch, g in table.items()}
    got = solve("远上寒山石径斜，白云生处有人家。停车坐爱枫林晚，霜叶红于二月花。", table)
    assert isinstance(got, tuple) and len(got) == 2, f"应返回 (shared, first_line) 两项，实际是 {got!r}"
    assert got == (["下平声六麻"], True), f"《山行》家、花同在六麻，首句的斜也在：应为 (['下平声六麻'], True)，实际是 {got!r}"
    got = solve("白发三千丈，缘愁似个长。不知明镜里，何处得秋霜。", table)
    assert got == (["下平声七阳"], False), \
        f"《秋浦歌》长（阳、养、漾）与霜（阳）只共有七阳；丈在养韵，与长同韵却不在共同韵部里，首句不入韵，实际是 {got!r}"
    got = solve("春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。", table)
    assert got == (["上声十七筱"], True), f"《春晓》押的是仄韵（上声十七筱），仄韵也是韵，实际是 {got!r}"
    got = solve("名花倾国两相欢，长得君王带笑看。解释春风无限恨，沉香亭北倚阑干。", table)
    assert got == (["上平声十四寒", "去声十五翰"], True), \
        f"看与干共有两个韵部：寒、翰，都要列出，按看的列表的先后，实际是 {got!r}"
    got = solve("汉使却回凭寄语，黄金何日赎蛾眉？君王若问妾颜色，莫道不如宫里时。", table)
    assert got == (["上平声四支"], False), f"第二句以 ？ 结尾：？ 也是句尾，眉、时同在四支，实际是 {got!r}"
    got = solve("少小离家老大回，乡音难改鬓毛衰。儿童相见不相识，笑问客从何处来。", table)
    assert got == ([], False), f"表里的衰只在四支，来在十灰：没有共同的韵部，不押韵，首句也就不入韵，实际是 {got!r}"
    got = solve("远上寒山石径斜，白云生处有人家。停车坐爱枫林晚，霜叶红于二月花。",
                {ch: g for ch, g in table.items() if ch != "花"})
    assert got == ([], False), f"groups 里没有“花”：查不到的字不与任何字押韵，实际是 {got!r}"
    assert table == kept, "solve 不应改动传进来的 groups"
    print("本课补全练习通过。")
