"""一字一诗：从零搭一个会写绝句的小 GPT。各模块的分工见 ARCHITECTURE.md。"""
