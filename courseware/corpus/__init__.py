"""维护者重建 data/ 的工具：build.py 从 chinese-poetry 的 npm 包建语料与韵书（python -m courseware.corpus.build），
tables.py 是建语料用到的异体字表、平水韵的勘误与删去的读音。"""
