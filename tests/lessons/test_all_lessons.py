"""每一课（CI 里唯一的一道课程关）：实验能跑通、输出与记录下来的 output.txt 相同，参考答案通过全部检查，起始文件得到“未完成”，
课文小节齐全、标题与前后课的链接和课表一致，起始文件与参考答案除了 solve 的函数体一字不差。

检查本身都是 courseware.selfcheck.verify 里的函数（./poet verify 用的同一套），这里只是逐课调用；
实验与两次检查由 verify 两份同时跑（每份一个线程），比一项一项跑快约四成。
"""

import pytest
from rich.cells import cell_len

from courseware.catalogue import CATALOGUE, LESSON_FILES, LESSONS_DIR
from courseware.defaults import CHECK_TIMEOUT_S, REFERENCE_SHARE
from courseware.selfcheck.figures import HEADER
from courseware.selfcheck.record import OUTPUT
from courseware.selfcheck.starters import starter_text
from courseware.selfcheck.verify import readme_problem, stray_folders, verify
from poetry_gpt.labs import WIDTH

AVAILABLE = [lesson for lesson in CATALOGUE if lesson.available]
ids = [lesson.code for lesson in AVAILABLE]
RUN_BY_VERIFY = (
    "test_experiment_runs",
    "test_output_matches_the_recording",
    "test_solution_passes_and_starter_is_not_filled_in",
    "test_reference_check_leaves_room_under_the_limit",
)


@pytest.fixture(scope="module")
def verified(request) -> dict:
    """``./poet verify --jobs 2`` 只跑这次选中的课（pytest -k 09 只跑第 09 课）：课号 → LessonReport。

    用 ./poet verify 自己的缓存（runs/verify-cache.json）：一课的指纹（verify.fingerprint：课的文件、用到的课程模块、
    记录、数据、Python 与 torch 的版本）与上次通过时相同，就不再跑它的实验与两次检查；“课文的数与代码”每次都查。
    新克隆的仓库（CI）没有缓存，全部都跑。"""
    codes = {
        item.callspec.params["lesson"].code
        for item in request.session.items
        if item.module is request.module and item.originalname in RUN_BY_VERIFY
    }
    # 超时只为抓住卡死的实验：最慢的一课在空闲的两核上要十几秒，机器很忙时（旁边另有占满两核的进程）
    # 慢十倍也不该算失败，所以给 600 秒
    reports, _ = verify(jobs=2, timeout=600, codes=codes)
    return {report.lesson.code: report for report in reports}


def test_every_lesson_folder_is_in_the_catalogue():
    assert stray_folders() == []
    for p in LESSONS_DIR.iterdir():  # 半成品的文件夹也算错：五个文件必须都在
        if p.is_dir() and not p.name.startswith((".", "_")):
            assert all((p / f).is_file() for f in LESSON_FILES), p.name
    assert "09" in ids


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_experiment_runs(lesson, verified):
    assert verified[lesson.code].problems["experiment"] is None


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_output_matches_the_recording(lesson, verified):
    """实验现在印的与 lessons/NN/output.txt 相同（计时除外）：课文里的数对照的就是这份记录
    （tests/courseware/test_figures.py）。"""
    assert verified[lesson.code].problems["output"] is None


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_solution_passes_and_starter_is_not_filled_in(lesson, verified):
    problems = verified[lesson.code].problems
    assert (problems["solution"], problems["starter"]) == (None, None)


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_reference_check_leaves_room_under_the_limit(lesson, verified):
    """参考答案的那次检查（verify 跑的）用掉的 CPU 秒数——时间上限算的那个数——不超过默认上限的 REFERENCE_SHARE：
    慢几倍的笔记本上、写法慢一些的对的答案也不超时。verify 用一个计算线程检查，./poet check 默认两个：
    两个线程下每课的数由 bench/check_cpu.py 印出（CONTRIBUTING.md 的表）。"""
    used = verified[lesson.code].cpu_seconds
    if used is None:
        pytest.skip("本机记不了一次检查的 CPU 秒数（没有可用的 cgroup，见 ./poet doctor）")
    limit = REFERENCE_SHARE * CHECK_TIMEOUT_S
    assert used <= limit, f"参考答案的检查用了 {used:.1f} 秒 CPU，超过默认上限 {CHECK_TIMEOUT_S:g} 秒的 {limit:g} 秒"


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_recorded_output_fits_80_columns(lesson):
    """实验印的每一行不超过 80 列（汉字占两格）：记录是在 120 列里跑的（record.RUN_ENV），记录里不超过 80 列的行
    在 80 列的终端上原样印出——表不会被 rich 挤窄、在格子里折开数，长行也不会被终端从中间截断。
    不重跑实验：记录与实验现在印的相同由 test_output_matches_the_recording 保证。"""
    text = (lesson.folder / OUTPUT).read_text(encoding="utf-8")
    wide = [line for line in text.splitlines() if not line.startswith(HEADER) and cell_len(line) > WIDTH]
    assert not wide, f"{len(wide)} 行超过 {WIDTH} 列，第一行：{wide[0]}"


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_starter_is_generated_from_the_solution(lesson):
    """starter.py 由 solution.py 生成（courseware/selfcheck/starters.py）：改了答案要运行 ./poet verify --starters。"""
    starter = (lesson.folder / "starter.py").read_text(encoding="utf-8")
    assert starter == starter_text(lesson), "运行 ./poet verify --starters 重新生成"
    assert "raise NotImplementedError(" in starter and "./poet check" in starter and "./poet hint" in starter


@pytest.mark.parametrize("lesson", AVAILABLE, ids=ids)
def test_lesson_files_have_the_course_shape(lesson):
    starter = (lesson.folder / "starter.py").read_text(encoding="utf-8")
    assert starter.startswith(f'"""第 {lesson.code} 课补全练习：')
    assert "修改 solve，保持下方检查不变。" in starter.splitlines()[0]
    assert 'print("本课补全练习通过。")' in starter and 'if __name__ == "__main__":' in starter
    # 起始文件只依赖标准库和 torch，可以单独下载
    imports = [l.split()[1] for l in starter.splitlines() if l.startswith(("import ", "from "))]
    assert all(
        name.split(".")[0]
        in {
            "torch",
            "math",
            "random",
            "collections",
            "itertools",
            "re",
            "string",
            "typing",
            "unicodedata",
            "functools",
            "io",
            "json",
        }
        for name in imports
    ), imports
    assert readme_problem(lesson) is None
    assert "../GLOSSARY.md" in (lesson.folder / "README.md").read_text(encoding="utf-8")
