"""The log's warning when a CUDA build of torch runs on a machine without a GPU (ui/install_check.py)."""

from __future__ import annotations

import logging

from ui import install_check as ic


def _version_file(tmp_path, cuda_line: str):
    path = tmp_path / "version.py"
    path.write_text(f"from typing import Optional\n__version__ = '2.13.0'\n{cuda_line}\nhip = None\n")
    return path


def test_reads_the_cuda_version_of_the_build_without_importing_torch(tmp_path):
    assert ic.torch_cuda_version(_version_file(tmp_path, "cuda: Optional[str] = '12.8'")) == "12.8"
    assert ic.torch_cuda_version(_version_file(tmp_path, "cuda = '13.0'")) == "13.0"
    assert ic.torch_cuda_version(_version_file(tmp_path, "cuda: Optional[str] = None")) is None
    assert ic.torch_cuda_version(tmp_path / "missing.py") is None


def test_this_environment_has_the_cpu_build():
    assert ic.torch_cuda_version() is None


def test_a_gpu_shows_as_device_files(tmp_path, monkeypatch):
    monkeypatch.setattr(ic.shutil, "which", lambda name: None)
    assert not ic.has_nvidia_gpu(tmp_path)
    (tmp_path / "nvidia0").touch()
    assert ic.has_nvidia_gpu(tmp_path)


def test_warns_only_for_a_cuda_build_without_a_gpu():
    assert ic.cuda_build_without_gpu(None, gpu=False) is None
    assert ic.cuda_build_without_gpu("12.8", gpu=True) is None
    message = ic.cuda_build_without_gpu("12.8", gpu=False)
    assert "CUDA 12.8" in message and "3.11, 3.12 or 3.13" in message


def test_warn_once_logs_once(monkeypatch, caplog):
    monkeypatch.setattr(ic, "torch_cuda_version", lambda: "12.8")
    monkeypatch.setattr(ic, "has_nvidia_gpu", lambda: False)
    ic.warn_once.cache_clear()
    with caplog.at_level(logging.WARNING, logger=ic.__name__):
        ic.warn_once()
        ic.warn_once()
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    ic.warn_once.cache_clear()
