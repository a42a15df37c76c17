"""attn_core.models.release_page_cache: the cached pages of files read once are handed back to
the kernel, the pages a process maps stay (issue #21: the page cache counts against Cloud's
690 MB). Read with util-linux's fincore, which asks the kernel what is resident."""

from __future__ import annotations

import importlib
import mmap
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SIZE = 4 * 2**20

pytestmark = pytest.mark.skipif(
    not hasattr(os, "posix_fadvise") or shutil.which("fincore") is None, reason="needs Linux and fincore"
)


def _resident(path: Path) -> int:
    """Bytes of ``path`` in the page cache."""
    out = subprocess.run(["fincore", "-b", "-n", "-o", "RES", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def _filesystem(path: Path) -> str:
    out = subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package ``readonce`` with a 4 MB data file, read once, and two modules: ``used``,
    imported, and ``unused``, read as a file but never imported."""
    if _filesystem(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip("files in tmpfs are memory, not page cache")
    importlib.import_module("attn_core.models")  # its first import releases what has been read so far
    folder = tmp_path / "readonce"
    (folder / "data").mkdir(parents=True)
    (folder / "__init__.py").write_text("X = 1\n")
    (folder / "used.py").write_text("Y = 2\n")
    (folder / "unused.py").write_text("Z = 3\n")
    data = folder / "data" / "blob.bin"
    data.write_bytes(os.urandom(SIZE))
    os.sync()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # no bytecode file: what is read is the source
    importlib.import_module("readonce.used")
    for path in (data, folder / "unused.py"):
        path.read_bytes()
    yield folder
    for name in ("readonce", "readonce.used"):
        sys.modules.pop(name, None)


def test_read_once_files_leave_the_page_cache(package):
    from attn_core import models

    data = package / "data" / "blob.bin"
    assert _resident(data) >= SIZE // 2  # read, so cached
    assert _resident(package / "used.py") > 0
    assert models.release_page_cache(("readonce",)) >= 3  # the data file and two modules, at least
    assert _resident(data) == 0
    assert _resident(package / "__init__.py") == 0
    assert _resident(package / "used.py") == 0


def test_files_never_imported_are_not_opened(package):
    """A module file of the package that no import read stays as it was: the release opens
    only what this process read (each file opened costs the kernel an inode)."""
    from attn_core import models

    assert _resident(package / "unused.py") > 0
    assert str(package / "unused.py") not in models._files_read(("readonce",))
    models.release_page_cache(("readonce",))
    assert _resident(package / "unused.py") > 0


def test_mapped_pages_stay(package):
    from attn_core import models

    data = package / "data" / "blob.bin"
    with open(data, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        total = sum(mapped[i] for i in range(0, SIZE, mmap.PAGESIZE))  # touch every page
        assert str(data) in models._files_read(())  # a mapped file counts as read
        models.release_page_cache(("readonce",))
        assert _resident(data) == SIZE
        assert total == sum(data.read_bytes()[i] for i in range(0, SIZE, mmap.PAGESIZE))


def test_a_missing_package_is_no_error():
    from attn_core import models

    assert models.release_page_cache(("no_such_package_here",)) > 0  # the imported modules' files still


def test_torch_and_the_model_are_released():
    """The default covers the model's files and what importing torch and transformers read."""
    import torch
    import transformers

    from attn_core import models

    folder = models.default_model_dir()
    if folder is None:
        pytest.skip("the embedded model package is not installed")
    files = models._files_read(models._DATA_PACKAGES)
    assert {str(p) for p in Path(folder).iterdir() if p.suffix in (".safetensors", ".json", ".txt")} <= files
    assert {torch.__file__, transformers.__file__, models.__file__} <= files
    libtorch = next(Path(torch.__file__).parent.glob("lib/libtorch_cpu.so*"))
    assert str(libtorch.resolve()) in files  # mapped: its read-ahead surplus goes
    assert not any(f.endswith((".h", ".pyi")) for f in files)
    assert models.release_page_cache() > 1000  # torch alone imports over a thousand modules
