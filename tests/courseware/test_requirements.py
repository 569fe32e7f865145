"""requirements.txt（.venv-setup.sh 照它安装）与 pyproject.toml 的依赖一致。"""

from poetry_gpt.common import ROOT, read_toml


def requirement_lines():
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_requirements_match_pyproject():
    project = read_toml(ROOT / "pyproject.toml")["project"]
    runtime, test = project["dependencies"], project["optional-dependencies"]["test"]
    assert requirement_lines() == [*runtime, *test, "-e ."]
    assert "torch==2.13.0" in runtime  # 别的 torch 版本会拉来几 GB 的 CUDA 包


def test_setup_script_installs_from_requirements():
    script = (ROOT / ".venv-setup.sh").read_text(encoding="utf-8")
    assert "-r requirements.txt" in script and '-e ".[test]"' not in script
    assert 'open("requirements.txt", "rb")' in script  # 改了 requirements.txt 就重新安装
