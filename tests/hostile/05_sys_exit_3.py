# 期望：崩溃
"""可见检查时 sys.exit(3)。"""
import sys

sys.exit(3)
