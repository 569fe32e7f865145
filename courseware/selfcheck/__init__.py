"""课程的自检（./poet verify 与测试用）：每课的实验、答案与起始代码跑一遍，课文对照记录与代码。

- verify.py：总检查，逐课并行，按文件指纹缓存；imports.py：源码里的导入图（指纹与架构测试共用）；
- record.py：记下实验、./poet eval 与训练日志的输出（lessons/NN/output.txt、results/）；
- figures.py：课文里的数与引来的诗对照记录；excerpts.py：课文的代码块对照课程代码；
  names.py：文字点到的路径、模块、函数、命令与选项都真有；
- teaching.py：由各课 check.py 生成老师手册里不许用的捷径；starters.py：由 solution.py 生成 starter.py。
"""
