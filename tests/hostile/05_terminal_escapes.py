# 期望：崩溃
"""输出与错误消息里都有清屏、改标题、回车覆盖等控制序列。"""
import sys

print("\x1b]0;被改了\x07\x1b[2J\x1b[31m红字\r覆盖\x08")
sys.stdout.flush()
raise RuntimeError("\x1b[2J\x1b]52;c;ZXZpbA==\x07 清屏")
