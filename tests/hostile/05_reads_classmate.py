# 期望：崩溃
"""不写答案，照抄同班 honest_05 的文件：班级文件夹在沙箱里看不见（放在 .venv、/usr 这些沙箱放进来的文件夹下也一样）。"""
with open("{{CLASS}}/honest_05/05.py", encoding="utf-8") as f:
    exec(f.read())
