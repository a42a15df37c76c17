"""What the server says in its log at start about how torch was installed: a CUDA build of torch
on a machine without an NVIDIA GPU is several GB of disk and memory for nothing (the app runs
the model on the CPU either way), which happens when requirements.txt's CPU-wheel links do not
match the Python in use. Read without importing torch, which the app only loads on demand.
Plain Python, no Streamlit: app.py calls ``warn_once`` on every run, and it logs once."""

from __future__ import annotations

import functools
import importlib.util
import logging
import re
import shutil
from pathlib import Path

log = logging.getLogger(__name__)
_CUDA = re.compile(r"^cuda\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)


def torch_cuda_version(version_file: Path | None = None) -> str | None:
    """The CUDA version the installed torch was built for ("12.8"), from torch/version.py; None
    for a CPU build or when torch is not installed."""
    if version_file is None:
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.origin is None:
            return None
        version_file = Path(spec.origin).parent / "version.py"
    try:
        found = _CUDA.search(version_file.read_text(encoding="utf-8"))
    except OSError:
        return None
    return found.group(1) if found else None


def has_nvidia_gpu(dev: Path = Path("/dev")) -> bool:
    """Whether an NVIDIA GPU and its driver are visible: its device files, or nvidia-smi."""
    return (dev / "nvidiactl").exists() or any(dev.glob("nvidia[0-9]*")) or shutil.which("nvidia-smi") is not None


def cuda_build_without_gpu(cuda: str | None, gpu: bool) -> str | None:
    """The log's warning for a CUDA build without a GPU, else None."""
    if cuda is None or gpu:
        return None
    return (
        f"torch is a CUDA build (CUDA {cuda}) but this machine has no NVIDIA GPU: the model runs on the CPU "
        "anyway, and the CUDA libraries cost several GB of disk and memory. Install the CPU wheel that "
        "requirements.txt links for Linux x86_64 with Python 3.11, 3.12 or 3.13 (on Streamlit Community Cloud, "
        "pick one of those Pythons in the app's settings)."
    )


@functools.cache
def warn_once() -> None:
    """Log the warning, once per server process."""
    message = cuda_build_without_gpu(torch_cuda_version(), has_nvidia_gpu())
    if message:
        log.warning(message)
