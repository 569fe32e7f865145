"""共用的读写：JSONL 的坏行报出行号，系统错误用中文说明，原子写出的文件与普通文件一样可读。"""

import pytest

from poetry_gpt.common import DataFileError, os_reason, read_json, read_jsonl


def test_read_jsonl_names_the_bad_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n{oops\n', encoding="utf-8")
    with pytest.raises(DataFileError, match="第 2 行"):
        read_jsonl(path)
    with pytest.raises(DataFileError, match="找不到"):
        read_json(tmp_path / "missing.json")


def test_os_errors_are_explained_in_chinese(tmp_path):
    """系统给的原因（e.strerror）是英文：常见的几种换成中文，不认识的照原话。"""
    with pytest.raises(OSError) as missing:
        open(tmp_path / "nothing" / "x.txt", encoding="utf-8")
    with pytest.raises(OSError) as folder:
        open(tmp_path, encoding="utf-8")
    (tmp_path / "f").write_text("", encoding="utf-8")
    with pytest.raises(OSError) as under_file:
        (tmp_path / "f" / "run").mkdir()
    assert [os_reason(e.value) for e in (missing, folder, under_file)] == [
        "没有这个文件或文件夹",
        "这是一个文件夹",
        "路径里有一段不是文件夹",
    ]
    assert os_reason(OSError(9999, "Something odd")) == "Something odd"


def test_atomic_writes_are_readable_like_normal_files(tmp_path):
    from poetry_gpt.common import atomic_write_text

    atomic_write_text(tmp_path / "report.csv", "a,b\n")
    assert (tmp_path / "report.csv").stat().st_mode & 0o777 == 0o644
