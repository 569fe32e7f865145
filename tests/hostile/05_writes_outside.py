# 期望：不通过
"""往测试的临时文件夹（班级外）写一个文件。"""
with open("{{OUTSIDE}}", "w", encoding="utf-8") as f:
    f.write("来过")


def solve(*args):
    return []
