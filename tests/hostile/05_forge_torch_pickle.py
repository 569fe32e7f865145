# 期望：崩溃
"""交回一个 torch.save 的 pickle（旧格式）：父进程不再用 pickle 读。"""
import io, os, sys
import torch

buf = io.BytesIO()
torch.save({"status": "ok", "outputs": []}, buf)
os.write(int(sys.argv[-1]), buf.getvalue())
os._exit(0)
