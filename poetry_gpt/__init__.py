"""一字一诗：从零搭一个会写绝句的小 GPT。各模块的分工见 README.md。"""
import warnings

# 课程不装 numpy（没有一处用到它）；torch 某些内部模块导入时会为此提醒一句英文，对学习者只是噪音。
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
