"""每一课：实验能跑通，参考答案通过全部检查，起始文件得到“未完成”，课文小节齐全。"""
import subprocess
import sys

import pytest

from poetry_gpt.courseware.catalogue import CATALOGUE, LESSON_FILES, LESSONS_DIR
from poetry_gpt.courseware.grading import Limits, check_file
from poetry_gpt.courseware.verify import readme_problem

AVAILABLE = [lesson for lesson in CATALOGUE if lesson.available]
ids = [lesson.code for lesson in AVAILABLE]


def test_every_lesson_folder_is_in_the_catalogue():
    folders = {p.name for p in LESSONS_DIR.iterdir() if p.is_dir()}
    assert folders <= {lesson.code for lesson in CATALOGUE}
    for name in folders:  # 半成品的文件夹也算错：五个文件必须都在
        assert all((LESSONS_DIR / name / f).is_file() for f in LESSON_FILES), name
    assert "09" in ids


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_experiment_runs(lesson):
    run = subprocess.run([sys.executable, str(lesson.folder / "experiment.py")], capture_output=True,
                         text=True, encoding="utf-8", timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip(), "实验应当打印结果"


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_solution_passes_and_starter_is_not_filled_in(lesson):
    solved = check_file(lesson, lesson.folder / "solution.py", Limits(timeout=60))
    assert solved.kind == "passed", solved.message
    blank = check_file(lesson, lesson.folder / "starter.py", Limits(timeout=60))
    assert blank.kind == "not_implemented", blank.message
    assert "请补全" in blank.message


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_lesson_files_have_the_course_shape(lesson):
    starter = (lesson.folder / "starter.py").read_text(encoding="utf-8")
    solution = (lesson.folder / "solution.py").read_text(encoding="utf-8")
    assert starter.startswith(f'"""第 {lesson.code} 课补全练习：')
    assert "修改 solve，保持下方检查不变。" in starter.splitlines()[0]
    assert 'print("本课补全练习通过。")' in starter and 'if __name__ == "__main__":' in starter
    # 起始文件只依赖标准库和 torch，可以单独下载
    imports = [l.split()[1] for l in starter.splitlines() if l.startswith(("import ", "from "))]
    assert all(name.split(".")[0] in {"torch", "math", "random", "collections", "itertools", "re", "string",
                                       "typing", "unicodedata", "functools", "io", "json"} for name in imports), imports
    assert starter.splitlines()[0] == solution.splitlines()[0]
    assert readme_problem(lesson) is None
    assert "../GLOSSARY.md" in (lesson.folder / "README.md").read_text(encoding="utf-8")
