"""docs/sandbox.md（批改保证什么、不保证什么）：每条保证指着的测试都真有，提到的攻击文件都在，不防的只在一处。"""

import re

from conftest import ROOT

DOC = ROOT / "docs" / "sandbox.md"
POINTER = re.compile(r"`((?:[\w/]+/)?test_\w+\.py)::(test_\w+)`")
HOSTILE_FILE = re.compile(r"`(\d\d_\w+)(?:\.py)?`")


def test_every_promise_points_to_a_test_that_exists():
    text = DOC.read_text(encoding="utf-8")
    pointers = POINTER.findall(text)
    assert len(pointers) >= 40, len(pointers)
    missing = []
    for file, name in sorted(set(pointers)):
        found = [p for p in (ROOT / "tests").rglob(file.rsplit("/", 1)[-1]) if str(p).endswith(file)]
        if len(found) != 1 or not re.search(rf"^def {name}\(", found[0].read_text(encoding="utf-8"), re.M):
            missing.append(f"{file}::{name}")
    assert missing == []


def test_every_hostile_file_named_is_in_the_suite():
    """写出来的攻击文件（NN_名字）是 tests/hostile/ 里的一份，或 hostile_kit.py 里按字节造的一份。"""
    built = (ROOT / "tests" / "hostile" / "hostile_kit.py").read_text(encoding="utf-8")
    named = set(HOSTILE_FILE.findall(DOC.read_text(encoding="utf-8")))
    assert len(named) >= 20, named
    assert not {n for n in named if f'"{n}"' not in built and not (ROOT / "tests" / "hostile" / f"{n}.py").exists()}


def test_what_is_not_defended_is_listed_in_one_place():
    """“不防的”是最后一节，别的小节不另写一份。"""
    headings = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
    assert headings[-1] == "## 7. 不防的" and sum("不防" in h for h in headings) == 1, headings
