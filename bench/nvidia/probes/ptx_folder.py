"""Shared step of the PTX-edit probes: copies make_bench.py folder SRC to
DST, every .ptx through edit(text) -> text, the rest as it is."""
import os
import shutil


def edit_folder(src, dst, edit):
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(src):
        p = os.path.join(src, name)
        if name.endswith(".ptx"):
            with open(os.path.join(dst, name), "w") as f:
                f.write(edit(open(p).read()))
        else:
            shutil.copy(p, dst)
