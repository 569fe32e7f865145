"""课件：课表、练习的运行与批改、全课自检、网站、poet 命令，还有维护者重建语料的 corpus。

这一翼围绕 poetry_gpt 的模型库（model、data、train……）搭起课程；模型库从不导入这里。
"""
