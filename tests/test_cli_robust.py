"""poet 在各种终端与各种输入下都不倒：GBK/ASCII 终端、提前关掉的管道、超长与带控制字符的参数、
数值参数的范围、与配置或汉字表对不上的存档、80 列终端里的训练进度条、中文的帮助标题。

能在进程里调用 main 的都在进程里调用（每个 ./poet 子进程要 1.5 秒）；终端编码在进程里用一个
按该编码、errors="strict" 打开的 stdout 代替——与 PYTHONIOENCODING=gbk 时 Python 给的一样。
"""
import io
import json
import os
import re
import subprocess
import sys

import pytest
import torch
from rich.cells import cell_len

from conftest import ROOT
from poetry_gpt.checkpoint import CheckpointError, load_model, read_checkpoint, save_checkpoint
from poetry_gpt.courseware import catalogue, progress
from poetry_gpt.courseware.catalogue import BY_NUMBER, CATALOGUE, SECTIONS
from poetry_gpt.courseware.cli import display, main, tables
from poetry_gpt.courseware.cli.parser import MAX_ARGUMENT, temperature
from poetry_gpt.courseware.grading import Verdict
from poetry_gpt.data import default_tokenizer
from poetry_gpt.model import ModelConfig, PoetryGPT

TOK = default_tokenizer()
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
GOOD = """\
def solve(words, positions, past):
    T = words.shape[1]
    if past + T > positions.shape[0]:
        raise ValueError("位置表不够长")
    return words + positions[past:past + T]
"""


def run_main(monkeypatch, *argv, encoding="utf-8"):
    """在进程里运行 poet，stdout、stderr 换成 encoding 编码的流（stdout 为 strict，stderr 与 Python 一样为
    backslashreplace）。返回 (退出码, stdout 的字节, stderr 的文字)。"""
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="backslashreplace", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    try:
        code = main(list(argv))
    except SystemExit as e:  # argparse：--help（0）或参数写错（2）
        code = e.code
    return code, out.buffer.getvalue(), err.buffer.getvalue().decode(encoding)


def subprocess_poet(*args, env=None, **kwargs):
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PYTHONIOENCODING")} | (env or {})
    return subprocess.run([sys.executable, "-m", "poetry_gpt.courseware.cli", *args], cwd=ROOT, env=full,
                          timeout=120, **kwargs)


# ---------- GBK 与 ASCII 终端 ----------

@pytest.fixture(scope="module")
def learner_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("learner") / "mine.py"
    path.write_text("import torch\n\n\n" + GOOD, encoding="utf-8")
    return path


COMMANDS = {  # 命令 → (退出码, UTF-8 里能看到的一段字)
    "map": ([], 0, "学习路径/03 · GPT 的内部"),
    "progress": (["progress"], 0, "学习进度"),
    "hint": (["hint", "9"], 0, "广播"),
    "read": (["lesson", "9", "--read"], 0, "位置"),
    "write": (["write", "月", "--seed", "1"], 0, "月"),
    "help": (["--help"], 0, "选项："),
    "eval-help": (["eval", "--help"], 0, "--checkpoint"),
    "grade-help": (["grade", "--help"], 0, "班级文件夹"),
    "bad-lesson": (["lesson", "99"], 2, "不是有效的课号"),
    "bad-number": (["write", "月", "--top-p", "2"], 2, "--top-p"),
}


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize("encoding", ["gbk", "ascii"])
def test_every_command_survives_a_gbk_or_ascii_terminal(monkeypatch, name, encoding):
    argv, expected_code, words = COMMANDS[name]
    code, out, err = run_main(monkeypatch, *argv, encoding=encoding)
    assert code == expected_code, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    if encoding == "gbk":  # 汉字都写得出来；写不出的字（✓、盲文点）才换成 ?
        assert words in out.decode("gbk") + err
    elif expected_code == 0:  # 标准输出只有 ASCII 字节，汉字都成了 ?
        assert words.encode("ascii", "replace").decode("ascii") in out.decode("ascii")
    else:  # 标准错误与 Python 自己的一样：写成 \u4e0d 这样的转义
        assert words.encode("ascii", "backslashreplace").decode("ascii") in err


def test_check_works_in_an_ascii_terminal(monkeypatch, learner_file):
    code, out, err = run_main(monkeypatch, "check", "9", str(learner_file), encoding="ascii")
    assert code == 0, err
    text = out.decode("ascii")
    assert "+" in text and "?" in text  # ASCII 的边框；汉字成了 ?
    assert "Traceback" not in err


def test_marks_degrade_to_what_the_terminal_can_write(monkeypatch):
    for encoding, (yes, no) in (("utf-8", "✓✗"), ("gbk", "√×"), ("ascii", "vx")):
        out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)
        monkeypatch.setattr(sys, "stdout", out)
        display.tolerant_output()
        assert display.marks() == (yes, no)
        display.course_map(SECTIONS, CATALOGUE, {"09": "passed"})
        text = out.buffer.getvalue().decode(encoding)
        assert (f"{yes} 已通过" if encoding != "ascii" else "v ???") in text
        if encoding == "utf-8":
            assert "╭" in text
        else:
            assert "╭" not in text and "+" in text  # rich 换成了 ASCII 的边框


def test_json_stays_valid_and_lossless_in_an_ascii_terminal(monkeypatch):
    _, utf, _ = run_main(monkeypatch, "write", "月", "--seed", "3", "--json")
    code, ascii_out, err = run_main(monkeypatch, "write", "月", "--seed", "3", "--json", encoding="ascii")
    assert code == 0, err
    untimed = lambda poems: [{k: v for k, v in p.items() if k != "seconds"} for p in poems]  # noqa: E731
    assert untimed(json.loads(ascii_out.decode("ascii"))) == untimed(json.loads(utf.decode("utf-8")))
    assert "月" in json.loads(ascii_out)[0]["text"]


def test_grade_works_in_a_gbk_terminal(monkeypatch, tmp_path):
    for name, body in (("甲", GOOD), ("乙", GOOD.replace("words + positions", "words - positions"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "09.py").write_text("import torch\n\n\n" + body, encoding="utf-8")
    code, out, err = run_main(monkeypatch, "grade", str(tmp_path), "--lessons", "9", "--jobs", "2", encoding="gbk")
    text = out.decode("gbk")
    assert code == 0, err
    table = text[text.index("成绩表"):]
    assert "乙、甲" in text and "√" in table and "× 答案错误" in table and "1/2 50%" in table, text
    assert "Traceback" not in err


@pytest.mark.parametrize("env, args", [
    ({"PYTHONIOENCODING": "ascii"}, ["write", "月", "--seed", "2"]),
    ({"PYTHONIOENCODING": "gbk"}, ["lesson", "9"]),  # 实验在子进程里：它的输出也要降级
    ({"LANG": "C", "LC_ALL": "C"}, ["progress"]),
])
def test_real_terminal_encodings(workspace, env, args):
    run = subprocess_poet(*args, env={"POET_WORKSPACE": str(workspace), **env}, capture_output=True)
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 0, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    if env.get("PYTHONIOENCODING") == "ascii":
        run.stdout.decode("ascii")
    elif env.get("PYTHONIOENCODING") == "gbk":
        assert "位置" in run.stdout.decode("gbk") and "实验用时" in run.stdout.decode("gbk")


# ---------- 提前关掉的管道 ----------

@pytest.mark.parametrize("args", [["write", "月"], ["progress"], ["lesson", "9"], ["--help"]])
def test_a_reader_that_is_already_gone_is_not_an_error(workspace, args):
    read, write = os.pipe()
    os.close(read)  # 没有人读：第一次写就是 EPIPE，与 | head -1 读完一行就走一样，但不靠运气
    try:
        run = subprocess_poet(*args, env={"POET_WORKSPACE": str(workspace)}, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    err = run.stderr.decode("utf-8", "replace")
    assert run.returncode == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""


def test_head_one_through_the_launcher(workspace):
    script = f'"{ROOT}/poet" progress | head -1; echo "rc=${{PIPESTATUS[0]}}"'
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, encoding="utf-8", timeout=60,
                         env={**os.environ, "POET_WORKSPACE": str(workspace)})
    lines = run.stdout.splitlines()
    assert lines[0].strip() == "学习进度" and lines[-1] == "rc=0", run.stdout
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr


# ---------- 超长与奇怪的参数 ----------

@pytest.mark.parametrize("argv, words", [
    (["write", "月" * 10_000], ["第 2 个参数太长（10000 个字符）", "共 10000 个字符"]),
    (["write", "月" * 50], ["关键词太长：50 个字符", "共 50 个字符"]),
    (["write", "--acrostic", "春" * 41], ["藏头字太长", "共 41 个字符"]),
    (["write", "月\x00"], ["第 2 个参数", "空字符 \\x00"]),
    (["write", "\x1b[2J月"], ["控制字符 \\x1b"]),
    (["write", "😀"], ["“😀”不是汉字"]),
    (["lesson", "9" * 200], ["不是有效的课号", "共 200 个字符"]),
    (["check", "9", "/tmp/" + "x" * 300 + ".py"], ["第 3 个参数太长", "每个文件名最长 255 字节"]),
    (["check", "9", "/tmp/no-such" + "/长" * 80 * 3 + ".py"], ["找不到文件", "共 495 个字符"]),
    (["write", "月", "--checkpoint", "/tmp/" + "d/" * 1000], ["找不到模型存档", "共 2004 个字符"]),
    (["grade", "/tmp/" + "班" * 100], ["第 2 个参数太长"]),
    (["train", "--out", "x" * (MAX_ARGUMENT + 1)], ["第 3 个参数太长"]),
    (["write", "月", "--top-k", "9" * 200 + "x"], ["不是整数", "共 201 个字符"]),
    (["write", "月", "--form", "6" * 200], ["只能从 5、7 中选", "共 200 个字符"]),
])
def test_odd_arguments_get_a_short_chinese_message(monkeypatch, argv, words):
    code, out, err = run_main(monkeypatch, *argv)
    assert code == 2, err
    assert all(w in err for w in words), err
    assert len(err) < 600 and "Traceback" not in err
    assert "\x1b" not in err and "\x00" not in err  # 控制字符只以转义的样子回显


def test_traditional_characters_are_written_as_simplified(monkeypatch):
    code, out, err = run_main(monkeypatch, "write", "風", "--seed", "5", "--form", "5")
    text = out.decode("utf-8")
    assert code == 0, err
    assert "风" in text and "風" not in text


# ---------- 数值参数 ----------

@pytest.mark.parametrize("option, value, words", [
    ("--temperature", "10.5", "在 0.01 到 10 之间，收到 10.5"),
    ("--temperature", "1e300", "在 0.01 到 10 之间"),
    ("--temperature", "-1", "温度不能是负数：0 表示每步取最可能的字，其余要不小于 0.01，收到 -1"),
    ("--temperature", "0.001", "在 0.01 到 10 之间，收到 0.001（小于 0.01 的温度写出来与每步取最可能的字几乎没有分别，要这样就给 0"),
    ("--temperature", "nan", "有限数"),
    ("--temperature", "-inf", "有限数"),
    ("--top-k", "-1", "至少为 0"),
    ("--top-k", "nan", "不是整数"),
    ("--top-p", "0", "大于 0"),
    ("--top-p", "1.01", "最多 1"),
    ("--top-p", "inf", "有限数"),
    ("-n", "0", "正整数"),
    ("--seed", "-1", "随机种子"),
])
def test_write_number_ranges(monkeypatch, option, value, words):
    code, _, err = run_main(monkeypatch, "write", "月", f"{option}={value}")  # -inf 这样的值要用 = 连上
    assert code == 2 and words in err and option in err, err


@pytest.mark.parametrize("argv, words", [
    (["train", "--steps", "0"], "正整数"), (["train", "--steps", "nan"], "不是整数"),
    (["train", "--minutes", "0"], "大于 0"), (["train", "--minutes", "inf"], "有限数"),
    (["train", "--minutes", "nan"], "有限数"), (["train", "--minutes", "1e9"], "最多 10080"),
    (["check", "9", "--timeout", "nan"], "有限数"), (["grade", ".", "--jobs", "0"], "正整数"),
])
def test_other_number_ranges(monkeypatch, argv, words):
    code, _, err = run_main(monkeypatch, *argv)
    assert code == 2 and words in err, err


@pytest.mark.parametrize("value, right, wrong", [
    ("-1", "温度不能是负数：0 表示每步取最可能的字，其余要不小于 0.01", "几乎没有分别"),
    ("-0.001", "温度不能是负数", "几乎没有分别"),
    ("0.001", "小于 0.01 的温度写出来与每步取最可能的字几乎没有分别，要这样就给 0", "负数"),
])
def test_negative_temperature_has_its_own_message(monkeypatch, value, right, wrong):
    # 负数不是“太接近贪心”：它另有一句说明，0 < T < 0.01 的那句说明不变
    code, _, err = run_main(monkeypatch, "write", "月", f"--temperature={value}")
    assert code == 2 and right in err and wrong not in err, err


@pytest.mark.parametrize("argv, usage", [
    (["write", "月", "extra"], "用法：./poet write"),
    (["check", "9", "a.py", "b.py"], "用法：./poet check"),
])
def test_extra_arguments_are_reported_by_the_subcommand(monkeypatch, argv, usage):
    # 多出来的参数由子命令报错，印它自己的用法与帮助，不印 poet 的总用法
    code, _, err = run_main(monkeypatch, *argv)
    assert code == 2 and f"不认识这些参数：{argv[-1]}" in err and usage in err, err
    assert "poet [-h] 命令" not in err and f"查看帮助：{usage[3:]} --help" in err, err


def test_temperature_bounds_are_inclusive():
    assert temperature("0") == 0 and temperature("0.01") == 0.01 and temperature("10") == 10


# ---------- 与配置或汉字表对不上的存档 ----------

@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    torch.manual_seed(0)
    model = PoetryGPT(ModelConfig(vocab_size=len(TOK), context_length=48, width=16, n_layers=2, n_heads=2))
    path = tmp_path_factory.mktemp("ckpt") / "honest.pt"
    save_checkpoint(path, model, TOK, step=3)
    return path


def doctored(honest, tmp_path, change) -> str:
    state = torch.load(honest, weights_only=True)
    change(state)
    path = tmp_path / "doctored.pt"
    torch.save(state, path)
    return str(path)


@pytest.mark.parametrize("change, words", [
    (lambda s: s["model_config"].update(width=32), f"characters.weight 形状是 [{len(TOK)}, 16]，按它记录的模型尺寸应是 [{len(TOK)}, 32]"),
    (lambda s: s["model_config"].update(context_length=64), "positions.weight 形状是 [48, 16]"),
    (lambda s: s["model_config"].update(vocab_size=len(TOK) + 1), f"vocab_size 是 {len(TOK) + 1}，当前 data/vocab.json 有 {len(TOK)} 个字"),
    (lambda s: s["weights"].update({"characters.weight": torch.zeros(len(TOK) - 1, 16)}), f"characters.weight 形状是 [{len(TOK) - 1}, 16]"),
    (lambda s: s["weights"].update({"blocks.1.mlp.up.weight": torch.zeros(3, 16)}), "blocks.1.mlp.up.weight 形状是 [3, 16]，按它记录的模型尺寸应是 [64, 16]"),
    (lambda s: s["weights"].pop("blocks.0.mlp.up.bias"), "多出或缺少 blocks.0.mlp.up.bias"),
    (lambda s: s["weights"].update({"positions.weight": [1, 2]}), "positions.weight 不是张量"),
    (lambda s: s["model_config"].update(n_layers=10**9), "model_config 损坏了"),  # 不会真去建十亿层
    (lambda s: s["model_config"].update(n_heads=3), "model_config 损坏了"),
    (lambda s: s["model_config"].update(extra=1), "model_config 损坏了"),
])
def test_checkpoints_that_disagree_with_their_config_or_the_vocabulary_are_refused(monkeypatch, honest, tmp_path,
                                                                                   change, words):
    path = doctored(honest, tmp_path, change)
    assert torch.load(path, weights_only=True)["vocab_hash"] == TOK.vocab_hash  # 指纹对得上，仍要拒绝
    with pytest.raises(CheckpointError, match=re.escape(words)):
        read_checkpoint(path, TOK)
    code, _, err = run_main(monkeypatch, "write", "月", "--checkpoint", path)
    assert code == 2 and words in err and "不能使用" in err, err
    assert "Traceback" not in err and "size mismatch" not in err


def test_an_honest_checkpoint_still_loads_and_reading_it_leaves_the_random_state_alone(honest):
    model, state = load_model(honest, TOK)
    torch.manual_seed(1)
    before = torch.get_rng_state()
    read_checkpoint(honest, TOK)
    assert torch.equal(torch.get_rng_state(), before)  # 检查形状时建的模型不动全局随机数（各课实验的输出靠它）
    assert state["step"] == 3 and model.config.width == 16


# ---------- 80 列终端里的训练进度条 ----------

def test_train_progress_line_fits_80_columns(tmp_path):
    run = subprocess_poet("train", "--preset", "tiny", "--steps", "2", "--out", str(tmp_path / "run"),
                          env={"COLUMNS": "80", "FORCE_COLOR": "1"}, capture_output=True, text=True, encoding="utf-8")
    assert run.returncode == 0, run.stderr
    lines = [line for line in re.split(r"[\r\n]", ANSI.sub("", run.stdout)) if line.startswith("训练 ")]
    assert lines, run.stdout  # FORCE_COLOR 让 rich 像在终端里一样画进度条
    assert all(cell_len(line) <= 80 for line in lines), lines
    assert all(re.match(r"训练 \d/2 已用 \d:\d\d:\d\d 剩 ", line) for line in lines), lines
    assert any(line.startswith("训练 2/2 已用 0:00:") and "损失 " in line for line in lines), lines


# ---------- 成绩表走 display；帮助的标题用全角冒号 ----------

def test_grade_table_is_drawn_by_the_display_module(monkeypatch):
    out = io.TextIOWrapper(io.BytesIO(), encoding="gbk", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    display.tolerant_output()
    nine, ten = BY_NUMBER[9], BY_NUMBER[10]
    results = {("甲", "09"): Verdict("passed", ""), ("甲", "10"): Verdict("wrong", ""), ("乙", "09"): Verdict("timeout", "")}
    tables.grade_table(["甲", "乙"], [nine, ten], results, {"09": (1, 2, 2), "10": (0, 1, 2)},
                        {"通过": 1, "答案错误": 1, "超时": 1}, 20, "缺", 3.25)
    text = out.buffer.getvalue().decode("gbk")
    assert "成绩表" in text and "√" in text and "× 答案错误" in text and "× 超时" in text and "缺" in text
    assert re.search(r"交了的通过率 \W+ 1/2 50% \W+ 0/1 0% ", text) and re.search(r"全班通过率 \W+ 1/2 50% \W+ 0/2 0% ", text)
    assert "全班通过率：没交的算作没通过" in text and "判定统计：通过 1，答案错误 1，超时 1。用时 3.2 秒" in text
    for name in ("classroom.py", "gradebook.py"):  # 批改逻辑与报告本身不画表
        source = (ROOT / "poetry_gpt" / "courseware" / name).read_text(encoding="utf-8")
        assert "rich" not in source and "console" not in source


@pytest.mark.parametrize("command", [[], *([c] for c in ("lesson", "start", "check", "hint", "solution", "diff", "progress",
                                                         "doctor", "train", "write", "eval", "grade", "verify", "site"))])
def test_help_headings_are_full_width(monkeypatch, command):
    code, out, _ = run_main(monkeypatch, *command, "--help")
    text = out.decode("utf-8")
    assert code == 0 and text.startswith("用法：./poet") and "\n选项：\n" in text
    assert not re.search(r"^\S[^\n]*[^:\s]:$", text, flags=re.M), text  # 没有以半角冒号结尾的标题
    assert ("\n参数：\n" in text) == (command not in ([], ["progress"], ["doctor"], ["train"], ["eval"], ["verify"], ["site"]))


# ---------- 合乎 JSON、却不合格式的进度文件 ----------

STAMP = "2025-03-01 09:30:00"


@pytest.mark.parametrize("data, kept, dropped", [
    ({"01": {"status": "passed"}, "02": 5}, {"01": {"status": "passed"}}, "02"),
    ({"01": {"status": "passed", "updated": 5}, "03": {"status": "started", "updated": STAMP}},
     {"03": {"status": "started", "updated": STAMP}}, "01"),
    ({"01": {"status": ["x"]}, "09": {"status": "passed", "last_verdict": "通过"}},
     {"09": {"status": "passed", "last_verdict": "通过"}}, "01"),
    ({"01": {"status": "bogus"}, "02": {"status": "started"}}, {"02": {"status": "started"}}, "01"),
    ({"99": {"status": "passed"}, "\x1b[2J": {"status": "passed"}, "02": {"status": "passed", "extra": 1},
      "04": {"status": "passed", "last_verdict": "\x1b[31m红"}}, {}, "02、04、99、\\x1b[2J"),
])
def test_progress_entries_that_do_not_fit_are_dropped_once(monkeypatch, tmp_path, data, kept, dropped):
    path = tmp_path / ".progress.json"
    original = json.dumps(data).encode("utf-8")
    path.write_bytes(original)
    monkeypatch.setattr(catalogue, "workspace", lambda: tmp_path)  # 进度与 check 2 找的练习文件：不是学习者自己的那份
    for argv in ([], ["progress"], ["check", "2"]):  # 以前：AttributeError、NotRenderableError、TypeError
        code, out, err = run_main(monkeypatch, *argv)
        assert code in (0, 2) and "Traceback" not in err and "Error" not in err, err
        assert err.count("警告：进度文件") == (1 if argv == [] else 0), err  # 只在第一次读时说一次
    assert progress.load_progress() == kept
    backups = list(tmp_path.glob(".progress.json.broken-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == original  # 原文件一字不动地留着
    assert f"看不懂，已不算数：{dropped}；原文件已另存为 {backups[0].name}" in run_main_first_warning(monkeypatch, tmp_path, data)
    summary = run_main(monkeypatch, "progress")[1].decode("utf-8")
    passed = sum(e["status"] == "passed" for e in kept.values())
    started = len(kept) - passed
    assert f"已通过 {passed} 课，已开始 {started} 课，未开始 {len(CATALOGUE) - len(kept)} 课" in summary


def run_main_first_warning(monkeypatch, tmp_path, data) -> str:
    """把 data 写进另一个工作区的进度文件，运行一次 ./poet，返回它的标准错误（那一行警告）。"""
    other = tmp_path / "again"
    other.mkdir()
    (other / ".progress.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(catalogue, "workspace", lambda: other)
    err = run_main(monkeypatch)[2]
    backup = next(other.glob(".progress.json.broken-*")).name
    return err.replace(backup, next(tmp_path.glob(".progress.json.broken-*")).name)


def test_progress_text_is_shown_as_text(monkeypatch, tmp_path):
    path = tmp_path / ".progress.json"
    path.write_text(json.dumps({"09": {"status": "started", "last_verdict": "[red]答案错误[/]", "updated": STAMP}}),
                    encoding="utf-8")
    monkeypatch.setattr(catalogue, "workspace", lambda: tmp_path)
    code, out, err = run_main(monkeypatch, "progress")
    assert code == 0 and err == "" and "[red]答案错误[/]" in out.decode("utf-8")  # 方括号不是 rich 的标记
    assert list(tmp_path.iterdir()) == [path]


# ---------- 输出管道关掉了，命令照样做完 ----------

def nobody_reads(monkeypatch) -> None:
    """标准输出换成一个没有人读的管道（与 ./poet … | head -1 读完一行就走一样，但不靠运气）。
    在测试函数里调用：pytest 在每个阶段开始时会换回它自己的 sys.stdout。"""
    read, write = os.pipe()
    os.close(read)
    monkeypatch.setattr(sys, "stdout", open(write, "w", encoding="utf-8"))
    monkeypatch.setattr(display.console, "quiet", False)  # 测试之后把 stop_printing 设的 quiet 复原


def test_check_records_progress_when_nobody_reads(monkeypatch, tmp_path):
    nobody_reads(monkeypatch)
    monkeypatch.setattr(catalogue, "workspace", lambda: tmp_path)
    BY_NUMBER[9].exercise_file.parent.mkdir(parents=True)
    BY_NUMBER[9].exercise_file.write_text("import torch\n\n\n" + GOOD, encoding="utf-8")
    assert main(["check", "9"]) == 0
    assert display.reader_gone()
    assert progress.load_progress()["09"]["status"] == "passed"


def test_grade_writes_its_reports_when_nobody_reads(monkeypatch, tmp_path):
    nobody_reads(monkeypatch)
    (tmp_path / "class" / "甲").mkdir(parents=True)
    (tmp_path / "class" / "甲" / "09.py").write_text("import torch\n\n\n" + GOOD, encoding="utf-8")
    csv_path, json_path = tmp_path / "g.csv", tmp_path / "g.json"
    assert main(["grade", str(tmp_path / "class"), "--jobs", "1", "--csv", str(csv_path), "--json", str(json_path)]) == 0
    assert csv_path.read_bytes().decode("utf-8-sig") == ("学习者,第09课,通过数\r\n甲,通过,1\r\n"
                                                               "交了的通过率,1/1 100%,\r\n全班通过率,1/1 100%,\r\n")
    assert json.loads(json_path.read_text(encoding="utf-8"))["verdicts"][0]["kind"] == "passed"


def test_train_saves_its_checkpoint_when_nobody_reads(monkeypatch, tmp_path):
    nobody_reads(monkeypatch)
    assert main(["train", "--preset", "tiny", "--steps", "2", "--out", str(tmp_path / "run")]) == 0
    assert read_checkpoint(tmp_path / "run" / "checkpoint.pt", TOK)["step"] == 2


def test_json_to_a_closed_pipe_is_not_an_error(monkeypatch):
    nobody_reads(monkeypatch)
    assert main(["write", "月", "--seed", "1", "--json"]) == 0 and display.reader_gone()


# ---------- 消息：参数名与取值的写法、中文的参数名、语法错误的中文说明 ----------

@pytest.mark.parametrize("argv, words", [
    (["foo"], "命令写得不对：命令不能是“foo”，只能从 lesson、start、"),
    (["train", "--preset", "huge"], "--preset 不能是“huge”，只能从 tiny、base、verse 中选"),
    (["write", "月", "--form", "6"], "--form 不能是“6”，只能从 5、7 中选"),
    (["grade"], "缺少参数：班级文件夹\n用法：./poet grade"),
    (["check"], "缺少参数：课号\n用法：./poet check [-h] [--timeout 秒数] 课号 [文件]"),
    (["write", "月", "--top-k", "x"], "--top-k “x”不是整数"),
])
def test_argument_errors_quote_once_and_name_things_in_chinese(monkeypatch, argv, words):
    code, _, err = run_main(monkeypatch, *argv)
    assert code == 2 and words in err, err
    assert "'" not in err.splitlines()[0] and "CLASS" not in err


@pytest.mark.parametrize("command", ["grade", "write", "train", "check"])
def test_help_with_chinese_names_lines_up_and_fits_80_columns(monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "80")
    text = run_main(monkeypatch, command, "--help")[1].decode("utf-8")
    assert all(cell_len(line) <= 80 for line in text.splitlines()), text
    starts = set()  # 每行说明文字从第几格开始：带汉字的“--seed 种子”与“--json”对齐
    for line in text.split("选项：\n")[1].splitlines():
        m = re.match(r"(  -\S*(?: \S+)?\s{2,})\S", line)
        if m:
            starts.add(cell_len(m.group(1)))
    assert len(starts) == 1, text
    assert re.search(r"^  -h, --help +显示帮助$", text, flags=re.M)


SYNTAX_ERRORS = [  # (源代码, 中文说明里的一段)
    ("x = 1，2\n", "代码里不能用字符“，”：标点要用英文半角"),
    ("if x:\n\tpass\n        pass\n", "缩进里混用了制表符（Tab）和空格"),
    ("def f():\nreturn 1\n", "第 1 行的 def 后面要有缩进的函数体"),
    ("if x\n    pass\n", "这里少了冒号 :"),
    ("f(1, 2\n", "“(”没有配对的右括号"),
    ("x = [1 2]\n", "是不是漏了逗号？"),
    ("print 'hi'\n", "调用 print 要加括号"),
    ("  x = 1\n", "这一行多了缩进"),
    ("s = 'abc\n", "字符串没有结束"),
    ("x = 1 +\n", "语法错误"),
]


@pytest.mark.parametrize("source, chinese", SYNTAX_ERRORS)
def test_syntax_errors_get_a_chinese_gloss_with_the_original(source, chinese):
    from poetry_gpt.courseware.messages import syntax_message

    with pytest.raises(SyntaxError) as caught:
        compile(source, "mine.py", "exec")
    message = syntax_message(caught.value.msg)
    assert chinese in message and message.endswith(f"（{caught.value.msg}）")
    assert syntax_message("something new in Python 3.99") == "something new in Python 3.99"


def test_diff_explains_files_it_cannot_parse(monkeypatch, tmp_path):
    gbk, comma = tmp_path / "gbk.py", tmp_path / "comma.py"
    gbk.write_bytes("def solve(x):\n    return '月'\n".encode("gbk"))
    comma.write_text("def solve(x):\n    return x，1\n", encoding="utf-8")
    code, _, err = run_main(monkeypatch, "diff", "9", str(gbk))
    assert code == 2 and "第 2 行不是 UTF-8 编码（常见于" in err and "编码：文件不是" not in err, err
    code, _, err = run_main(monkeypatch, "diff", "9", str(comma))
    assert code == 2 and "第 2 行：代码里不能用字符“，”" in err and "（invalid character '，' (U+FF0C)）" in err, err


# ---------- 批改：忽略的每一项都有原因，名字里的控制字符写成转义 ----------

def test_grade_lists_every_ignored_entry_and_escapes_tabs(monkeypatch, tmp_path):
    from poetry_gpt.courseware.classroom import find_submissions
    from poetry_gpt.courseware.gradebook import pass_rates

    root = tmp_path / "class"
    for rel, text in (("amy/lessons/09/my_exercise.py", GOOD), ("amy/lessons/09/README.md", "笔记"), ("amy/notes.txt", "笔记"),
                      ("amy/notes/a.py", GOOD), ("amy/.DS_Store", ""), ("b\tc/09.py", GOOD), ("d\ne/09.py", GOOD),
                      ("zed/99.py", GOOD), ("zed/lessons/readme.txt", ""), ("__MACOSX/amy/09.py", GOOD), ("名单.txt", "")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "amy" / "lessons" / "10").mkdir()
    (root / "amy" / "lessons" / "08").symlink_to(root / "amy" / "notes")
    found = find_submissions(root, [BY_NUMBER[9]])
    assert found.learners == ["amy", "b\tc", "d\ne"] and found.hidden == 2  # __MACOSX 与 .DS_Store
    assert found.ignored == ["amy/lessons/08：符号链接，不批改",
                             "amy/lessons/09/README.md：不是 NN.py 或 lessons/NN/my_exercise.py",
                             "amy/lessons/10/：空文件夹",
                             "amy/notes/：不是 NN.py 或 lessons/NN/my_exercise.py",
                             "amy/notes.txt：不是 NN.py 或 lessons/NN/my_exercise.py",
                             "zed/99.py：第 99 课不在课表里或还没写好",
                             "zed/lessons/readme.txt：不是 NN.py 或 lessons/NN/my_exercise.py",
                             "zed/：里面没有认得出的练习文件",
                             "名单.txt：不是学习者文件夹"]
    results = {(name, "09"): Verdict("passed", "") for name in found.learners[:2]}
    assert pass_rates(found.learners, [BY_NUMBER[9]], results) == {"09": (2, 2, 3)}

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(display.console, "_width", 200)  # 长路径不折行
    tables.roster(str(root), found, None, "my_exercise.py")
    tables.grade_table(found.learners, [BY_NUMBER[9]], results, {"09": (2, 2, 3)}, {"通过": 2}, 20, "缺", 1.0)
    text = out.buffer.getvalue().decode("utf-8")
    assert "\t" not in text and "找到 3 名学习者：amy、b\\tc、d\\ne" in text
    assert "忽略 9 项" in text and "名单.txt：不是学习者文件夹" in text and "另有 2 个隐藏的文件或文件夹" in text
    rows = [line for line in text.splitlines() if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == ["amy", "b\\tc", "d\\ne", "交了的通过率", "全班通过率"], text


# ---------- ./poet eval 的表在 80 列里 ----------

def test_eval_tables_read_well_at_80_columns(monkeypatch):
    from poetry_gpt.courseware.cli.reader_table import READER_ROWS

    def group(poems, keywords):
        values = {"pct": 0.875, "num": 0.927, "dist": [0.0, 0.75, 0.25, 0.0]}
        return {"poems": poems, **{key: values[kind] for key, _, kind in READER_ROWS
                                   if keywords or not key.startswith(("keyword", "format"))}}

    reader = {"五言": group(100, True), "七言": group(100, True), "藏头": group(40, True), "四个关键词": group(60, True)}
    result = {"val_cross_entropy": 4.2, "bigram_cross_entropy": 5.85, "ratio_to_bigram": 0.718, "val_poems": 4000,
              "format_rate": 1.0, "format_rate_free": 0.93, "keyword_hit_rate": 1.0, "keyword_hit_rate_free": 0.6,
              "copy_rate": 0.01, "distinct_2": 0.91, "seconds_per_poem": 0.09, "prompts": 200,
              "rules": {"rhyme": True, "tones": "lenient", "repetition": True}, "reader": reader,
              "human": {"五言": group(100, False), "七言": group(100, False)}, "examples": ["床前明月光，疑是地上霜。"]}
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(display.console, "_width", 80)
    tables.eval_table(result, "data/model.pt")
    lines = out.buffer.getvalue().decode("utf-8").splitlines()
    assert all(cell_len(line) <= 80 for line in lines)
    grid = lines[next(i for i, line in enumerate(lines) if line.startswith("读者看得到的")):]
    head = next(line for line in grid if line.startswith("项目"))
    assert head.split() == ["项目", "五言", "五言·人", "七言", "七言·人", "藏头", "关键词"]  # 列名不折断，不带首数
    assert grid[grid.index(head) - 1].split() == ["四个"]  # 长列名分两行
    assert next(line for line in grid if line.startswith("首数")).split() == ["首数", "100", "100", "100", "100", "40", "60"]
    for key, label, kind in READER_ROWS:  # 每个行名都在一行里，后面是六个数
        if kind == "dist":
            continue
        row = next(line for line in grid if line.startswith(label)).split()[-6:]
        value = {"pct": "87.5%", "num": "0.927"}[kind]
        human = "–" if key.startswith(("keyword", "format")) else value  # 人写的诗没有关键词与格式这几行
        assert row == [value, human, value, human, value, value], (label, row)
    shares = [line.split()[-6:] for line in grid if line.startswith("给定的字出现")]
    assert shares == [[s, "–", s, "–", s, s] for s in ("0%", "75%", "25%", "0%")]  # 一格四个数拆成四行
    assert "床前明月光，疑是地上霜。" in lines


@pytest.mark.parametrize("content, words", [
    ("def solve(words, positions, past):\n    return '位置'\n".encode("gbk"),
     ["第 2 行不是 UTF-8 编码（常见于记事本或中文 Windows 默认的 GBK/ANSI 编码）：请把文件另存为 UTF-8"]),
    (b"def solve(words, positions, past):\n\tx = 1\n        return x\n",
     ["第 3 行：缩进里混用了制表符（Tab）和空格：请统一用 4 个空格（inconsistent use of tabs and spaces in indentation）"]),
    ("def solve(words, positions, past)：\n    return words\n".encode("utf-8"),
     ["第 1 行：代码里不能用字符“：”", "（invalid character '：' (U+FF1A)）", "def solve(words, positions, past)："]),
])
def test_check_explains_encoding_and_syntax_in_chinese(monkeypatch, tmp_path, content, words):
    path = tmp_path / "mine.py"
    path.write_bytes(content)
    monkeypatch.setattr(display.console, "_width", 300)  # 消息不折行
    code, out, err = run_main(monkeypatch, "check", "9", str(path))
    text = out.decode("utf-8")
    assert code == 1 and "语法错误" in text and all(w in text for w in words), text
    assert "编码：文件不是 UTF-8 编码" not in text
