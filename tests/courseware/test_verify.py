"""./poet verify：坏掉的课、check.py 里不认得的名字都报出来；批改程序的代码在每一课的指纹里；
并行的实验各用一个线程。"""

import re
import shutil

from courseware import catalogue as course
from courseware.catalogue import BY_NUMBER
from courseware.cli import tables
from courseware.selfcheck import imports, verify

JOBS = 2


def test_verify_reports_broken_lessons(tmp_path, monkeypatch, capsys):
    lessons = tmp_path / "lessons"
    shutil.copytree(BY_NUMBER[9].folder, lessons / "09", ignore=shutil.ignore_patterns("my_exercise*", "__pycache__"))
    (lessons / "09" / "experiment.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    shutil.copy(lessons / "09" / "solution.py", lessons / "09" / "starter.py")  # 起始代码“已经写好了”
    readme = lessons / "09" / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("## 深入一步", "## 更多"), encoding="utf-8")
    (lessons / "99").mkdir()
    (lessons / "12").mkdir()
    (lessons / "12" / "README.md").write_text("# 第 12 课\n", encoding="utf-8")
    monkeypatch.setattr(course, "LESSONS_DIR", lessons)

    reports, strays = verify.verify(jobs=JOBS, timeout=60, cache_path=None)
    assert strays == ["99"]
    problems = {r.lesson.code: {k: v for k, v in r.problems.items() if v} for r in reports}
    assert set(problems) == {"09", "12"}
    assert problems["12"] == {"files": "缺少 experiment.py、starter.py、solution.py、check.py"}
    assert set(problems["09"]) == {"experiment", "output", "readme", "starter"}
    assert "退出码 3" in problems["09"]["experiment"] and problems["09"]["output"] == "实验没有跑完"
    assert problems["09"]["readme"] == "缺少小节：深入一步"
    assert "应为“未完成”，实际是通过" in problems["09"]["starter"]
    # ./poet verify 打印的就是这张表（整个课程的通过由 tests/lessons/test_all_lessons.py 逐课检查，这里不再全跑一遍）
    tables.verify_table(reports, strays, verify.CHECKS, verify.CHECK_TITLES, 1.0)
    shown = capsys.readouterr().out
    assert "第 09 课 实验：" in shown and "退出码 3" in shown and "lessons/99 不在课表" in shown
    assert "有问题：2 课" in shown


def test_verify_reports_unknown_names_in_check_py(tmp_path, monkeypatch):
    """check.py 里拼错的大写名字（FORBIDEN）不会报错，只会让源码规则悄悄失效：./poet verify 的“五个文件”一项报出来。"""
    lessons = tmp_path / "lessons"
    shutil.copytree(BY_NUMBER[9].folder, lessons / "09", ignore=shutil.ignore_patterns("my_exercise*", "__pycache__"))
    check = lessons / "09" / "check.py"
    check.write_text(
        check.read_text(encoding="utf-8") + '\nFORBIDEN = {"softmax": "不要用"}\n_OWN = 1\n', encoding="utf-8"
    )
    monkeypatch.setattr(course, "LESSONS_DIR", lessons)
    problem = verify.settings_problem(BY_NUMBER[9])
    assert problem and "FORBIDEN" in problem and "_OWN" not in problem and "FORBIDDEN、" in problem
    report, _, todo = verify._quick_checks(BY_NUMBER[9], {}, record=False)
    assert report.problems["files"] == problem and todo  # 其余各项照常检查


def test_check_settings_are_what_the_grader_reads():
    """verify 认得的大写名字正是批改程序从 check.py 里读的那些；课程自己的 check.py 里没有别的。"""
    package = imports.ROOT / "courseware" / "grading"
    read = {
        m
        for p in package.glob("*.py")
        for m in re.findall(r'getattr\((?:check|lesson_check\(lesson\)), "([A-Z_]+)"', p.read_text(encoding="utf-8"))
    }
    assert read == set(verify.CHECK_SETTINGS)
    assert [(l.code, p) for l in course.CATALOGUE if l.folder.is_dir() and (p := verify.settings_problem(l))] == []


def test_the_grader_package_is_in_every_fingerprint():
    """verify 的缓存指纹包括批改程序包里的每一个模块：改了其中任何一个，各课都要重新检查。"""
    package = imports.ROOT / "courseware" / "grading"
    found = {imports.module_file(n) for n in verify.used_modules([])}
    assert set(package.glob("*.py")) <= found and package / "runner.py" in found


def test_the_fingerprint_follows_every_file_the_checks_read(tmp_path, monkeypatch):
    """tests/lessons/test_all_lessons.py 也用 verify 的缓存，所以指纹要包括检查读到的一切：课的文件夹里五个文件之外的
    （记录 output.txt 等）、results/ 里的记录（第 19 课的实验读 results/eval.json）；学习者的练习不算。"""
    lessons = tmp_path / "lessons"
    shutil.copytree(BY_NUMBER[19].folder, lessons / "19", ignore=shutil.ignore_patterns("my_exercise*", "__pycache__"))
    shutil.copytree(verify.ROOT / "results", tmp_path / "results")
    monkeypatch.setattr(course, "LESSONS_DIR", lessons)
    monkeypatch.setattr(verify, "ROOT", tmp_path)
    first = verify.fingerprint(BY_NUMBER[19])
    (lessons / "19" / course.EXERCISE).write_text("x = 1\n", encoding="utf-8")
    assert verify.fingerprint(BY_NUMBER[19]) == first
    (tmp_path / "results" / "eval.json").write_text("{}\n", encoding="utf-8")
    second = verify.fingerprint(BY_NUMBER[19])
    assert second != first
    (lessons / "19" / "output.txt").write_text("# 重新记录过\n", encoding="utf-8")
    assert verify.fingerprint(BY_NUMBER[19]) not in (first, second)


def test_experiments_run_in_parallel_get_one_thread_each(tmp_path, monkeypatch):
    """verify 同时跑几个实验时给每个 OMP_NUM_THREADS=1，setup_experiment 听它的；一个一个跑时照旧两个线程。"""
    (tmp_path / "09").mkdir()
    (tmp_path / "09" / "experiment.py").write_text(
        "import sys, torch\nfrom poetry_gpt.labs import setup_experiment\n"
        "setup_experiment()\nsys.exit(10 + torch.get_num_threads())\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(course, "LESSONS_DIR", tmp_path)
    assert "退出码 11" in verify.experiment_problem(BY_NUMBER[9], 60, threads=1)[0]
    assert "退出码 12" in verify.experiment_problem(BY_NUMBER[9], 60, threads=2)[0]
