"""cloud: the server alone in a cgroup sized like Streamlit Community Cloud's smallest machine.

Community Cloud gives an app between 0.078 and 2 CPUs and between 690 MB and 2.7 GB of
memory (GitHub issue #16). For each CPU limit in CPU_LIMITS the kernel's page cache is
dropped first (as on a freshly started machine, so that every file page the server reads,
torch's libraries and the model's weights included, is charged to its cgroup), then a fresh
`streamlit run app.py` starts inside a cgroup v1 pair (cpu: cfs_quota_us / cfs_period_us;
memory: limit_in_bytes = MEMORY_MB), put there before it runs any Python: a small shell
wrapper writes its own pid to both cgroup.procs files, then execs streamlit. Then the
real-model page is loaded (the model is in memory), and 30 browser-less protocol clients
(perf_protocol.py) make their three changes on the step page, all at once. At half a CPU
the class then does it again with every student making the same changes (a class following
the teacher's example: the runs share the engine's cache and the ready charts).

Written:
- load_cloud.p95_ms_cpu1 / p95_ms_cpu05 (and p50, max, errors): the class of 30 at each
  limit, timed per change from sending it to script_finished; server_cpu_ms_per_change_*:
  the server's CPU over those changes divided by their number; *_same_input: the same class
  all on the same sentences;
- memory_mb.cloud_cgroup_peak: the largest memory.max_usage_in_bytes of the two cgroups,
  what the kernel holds against the limit: the server's own memory plus the page cache it
  brought in (libraries, model file); cgroup_peak_mb_* per limit, and load_cloud.details
  its make-up (memory.stat: rss, cache, mapped_file) when the usage was highest;
- load_cloud.limit_hits: memory.failcnt of both cgroups added up, the times the usage
  reached the limit (the kernel then reclaims: page cache first, then the server is
  out of memory); limit_hits_* per limit;
- load_cloud.page_cache_dropped: whether the page cache could be dropped (root only); if
  not, files another process had read are not charged and the peak reads low (a note says so);
- load_cloud.other_processes_mapping_torch: processes other than the server that had this
  environment's torch library mapped. Mapped pages cannot be dropped and stay charged to
  whoever read them first, so the peak reads low (a note says so): bench.py runs this section
  before any other imports torch, and the sentences are drawn in a throwaway process, but a
  virtual environment shared with running processes (tests, another server) shares its pages;
- load_cloud.read_ahead_kb: the read-ahead of the disk the server's environment was read from.
  Each page fault in a mapped library makes the kernel read that much around it, and the
  cgroup is charged for all of it (a note when it is above Linux's default of 128 KB). Where
  root may mount a loop device, the server does not run from this Python environment (a
  developer's, with the test tools and whatever else was installed in it) but from the Cloud
  install: requirements.txt installed as `make run` installs it, by the Makefile, onto a disk
  that reads 128 KB ahead, as a Cloud machine's disk most likely does (DefaultReadAheadDisk;
  details.disk says what was measured). If that install fails, a copy of this environment
  goes on that disk instead, and if no disk can be made, this environment is measured where
  it is; a note says why, since other packages change what the server imports (transformers
  imports scipy whenever it is installed);
- load_cloud.install_mb: the size of the environment measured (du), the Cloud install's where
  it was made (issue #21: under 2.5 GB);
- memory_mb.cloud_cgroup_peak_host_disk, load_cloud.limit_hits_host_disk (and
  read_ahead_kb_host_disk, details.*_host_disk): the same two CPU limits again, from this
  environment on this machine's own disk, after the measurement on the loop device
  (BENCH_CLOUD_HOST_DISK=0 skips them); details.packages_only_in_host_environment lists what
  this environment has that the Cloud install has not; a shared virtual environment that
  other processes map makes this peak read low (a note);
- memory_mb.cloud_peak: the server's peak resident memory, its process tree's RSS sampled
  every SAMPLE_S (without the page cache that is not mapped);
- server_cpu_ms.step_T16: the server's CPU time (user + system, children included) per
  rerun of the step page at T = 16, from the process's own counters before and after
  CPU_RERUNS sentence changes by one protocol client, each a sentence no run saw before
  (a cache miss, as a student typing).

The cgroups are children of the cgroups this bench runs in (so any limit above still
applies); they are emptied and removed afterwards. Without root or cgroup v1 controllers
load_cloud and the memory_mb.cloud_* keys are null with a note, and server_cpu_ms is
measured on a server without limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import perf_protocol
from perf_browser import Server
from perf_inputs import ROOT, WORDS, Unavailable, step_labels, url_path

MEMORY_MB = 690  # Community Cloud's smallest memory
CPU_LIMITS = {"cpu1": 1.0, "cpu05": 0.5}  # key suffix -> CPUs
PERIOD_US = 100_000
SESSIONS = 30
CPU_RERUNS = 20
SAMPLE_S = 0.1
CGROUP_ROOT = Path("/sys/fs/cgroup")
DROP_CACHES = Path("/proc/sys/vm/drop_caches")
STAT_KEYS = ("rss", "cache", "mapped_file")  # memory.stat lines kept with the peak (bytes -> MB)
LINUX_READ_AHEAD_KB = 128  # the kernel's default read-ahead of a block device
DISK_TOOLS = ("mkfs.ext4", "losetup", "blockdev", "mount", "umount")
NAME = f"sae-bench-cloud-{os.getpid()}"


class Cgroup:
    """A cgroup v1 cpu + memory pair for one server, under this process's own cgroups."""

    def __init__(self, name: str = NAME) -> None:
        why = self.unavailable()
        if why:
            raise Unavailable(why)
        own = _own_cgroups()
        self.dirs = {ctl: CGROUP_ROOT / ctl / own.get(ctl, "/").lstrip("/") / name for ctl in ("cpu", "memory")}
        for path in self.dirs.values():
            path.mkdir()

    @staticmethod
    def unavailable() -> str | None:
        """Why a cgroup cannot be made here, or None."""
        if os.geteuid() != 0:
            return "not root: cannot create cgroups"
        for ctl, probe in (("cpu", "cpu.cfs_quota_us"), ("memory", "memory.limit_in_bytes")):
            if not (CGROUP_ROOT / ctl / probe).is_file():
                return f"no cgroup v1 {ctl} controller at {CGROUP_ROOT / ctl}"
        return None

    def limit(self, cpus: float, memory_mb: int) -> None:
        self._write("cpu", "cpu.cfs_period_us", PERIOD_US)
        self._write("cpu", "cpu.cfs_quota_us", int(cpus * PERIOD_US))
        self._write("memory", "memory.limit_in_bytes", memory_mb * 2**20)

    def wrap(self, cmd: list[str]) -> list[str]:
        """``cmd`` started inside this cgroup: the shell puts itself in, then becomes ``cmd``."""
        procs = [str(self.dirs[ctl] / "cgroup.procs") for ctl in ("cpu", "memory")]
        script = f'echo $$ > "{procs[0]}" && echo $$ > "{procs[1]}" && exec "$@"'
        return ["/bin/sh", "-c", script, "sh", *cmd]

    def read(self, ctl: str, name: str) -> int:
        return int((self.dirs[ctl] / name).read_text().split()[0])

    def memory_stat(self) -> dict[str, float]:
        """STAT_KEYS of memory.stat, in MB (this cgroup's own pages)."""
        out = {}
        for line in (self.dirs["memory"] / "memory.stat").read_text().splitlines():
            key, value = line.split()
            if key in STAT_KEYS:
                out[key] = round(int(value) / 2**20, 1)
        return out

    def oom_kills(self) -> int:
        text = (self.dirs["memory"] / "memory.oom_control").read_text()
        return next((int(ln.split()[1]) for ln in text.splitlines() if ln.startswith("oom_kill ")), 0)

    def remove(self) -> None:
        """Move whatever is left back to the parent cgroup and remove the pair."""
        for path in self.dirs.values():
            if not path.is_dir():
                continue
            for pid in (path / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    (path.parent / "cgroup.procs").write_text(pid)
            for _ in range(50):
                try:
                    path.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)

    def _write(self, ctl: str, name: str, value: int) -> None:
        (self.dirs[ctl] / name).write_text(str(value))


def _own_cgroups() -> dict[str, str]:
    """controller -> this process's cgroup path (cgroup v1 lines of /proc/self/cgroup)."""
    out = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for ctl in controllers.split(","):
            out[ctl] = path
    return out


class CloudServer(Server):
    """perf_browser's server, started inside a cgroup (by ``python``, this one by default)."""

    def __init__(self, cgroup: Cgroup, python: Path | None = None) -> None:
        super().__init__()
        self.cgroup = cgroup
        self.python = python

    def command(self) -> list[str]:
        cmd = super().command()  # [sys.executable, "-m", "streamlit", ...]
        if self.python is not None:
            cmd[0] = str(self.python)
        return self.cgroup.wrap(cmd)


class DefaultReadAheadDisk:
    """The Cloud install on a disk that reads ahead LINUX_READ_AHEAD_KB, as a Linux machine's
    disk does by default (Cloud's most likely does): a file-backed ext4 image in a temporary
    folder, on a loop device (direct I/O, so the image file is not cached a second time on this
    machine's disk), mounted there. The environment on it is made as Cloud makes its own, from
    requirements.txt alone: the Makefile's run install (``make VENV=... .run-stamp``, the
    packages `make run` installs, none of the test tools), so that the server imports what it
    would import on Cloud (transformers imports scipy, for one, whenever it is installed). If
    that install fails (no network, no pip cache), this Python environment is copied there
    instead (``how`` says which; ``install_error`` why). A context manager: ``python`` is the
    environment's interpreter, ``torch_lib`` its torch library; leaving unmounts, detaches and
    removes it all. The base interpreter and the app's own files stay where they are."""

    IMAGE_BYTES = 4 * 2**30  # sparse; the install is meant to stay under 2.5 GB (issue #21)

    def __init__(self) -> None:
        self.source = Path(sys.prefix).resolve()
        self.tmp: Path | None = None
        self.loop: str | None = None
        self.mount: Path | None = None
        self.copy: Path | None = None
        self.python: Path | None = None
        self.torch_lib: Path | None = None
        self.direct_io = False
        self.how = ""
        self.install_error: str | None = None

    @staticmethod
    def unavailable() -> str | None:
        """Why the disk cannot be made here, or None."""
        if os.geteuid() != 0:
            return "not root: cannot mount a loop device"
        missing = [tool for tool in DISK_TOOLS if shutil.which(tool) is None]
        return f"missing {', '.join(missing)}" if missing else None

    def __enter__(self) -> DefaultReadAheadDisk:
        try:
            self._make()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _make(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="sae-bench-disk-"))
        image = self.tmp / "disk.img"
        with open(image, "wb") as f:  # sparse: room for the install, or a copy of this environment
            f.truncate(max(self.IMAGE_BYTES, int(du_bytes(self.source) * 1.25) + 512 * 2**20))
        _run("mkfs.ext4", "-q", "-F", str(image))
        try:
            self.loop = _run("losetup", "--find", "--show", "--direct-io=on", str(image)).strip()
            self.direct_io = True
        except subprocess.CalledProcessError:
            self.loop = _run("losetup", "--find", "--show", str(image)).strip()
        _run("blockdev", "--setra", str(LINUX_READ_AHEAD_KB * 2), self.loop)  # in 512-byte sectors
        self.mount = self.tmp / "mnt"
        self.mount.mkdir()
        _run("mount", "-t", "ext4", "-o", "noatime", self.loop, str(self.mount))
        copy = self.copy = self.mount / "venv"
        try:
            base = getattr(sys, "_base_executable", None) or sys.executable
            stamp = f"{copy}/.run-stamp"  # the Makefile's `make run` install, into this folder
            _run("make", "-C", str(ROOT), "--no-print-directory", f"VENV={copy}", f"PYTHON={base}", stamp)
            self.how = "install"
        except subprocess.CalledProcessError as err:
            self.install_error = (err.stderr or err.stdout or str(err)).strip()[-200:]
            shutil.rmtree(copy, ignore_errors=True)
            _run("cp", "-a", str(self.source), str(copy))
            self.how = "copy"
        self.python = copy / "bin" / "python"
        probe = "import importlib.util, sys; print(sys.prefix); print(importlib.util.find_spec('torch').origin)"
        prefix, torch_origin = _run(str(self.python), "-c", probe).split()
        if Path(prefix) != copy or not Path(torch_origin).is_relative_to(copy):
            raise RuntimeError(f"the environment's python does not use it ({prefix}, {torch_origin})")
        self.torch_lib = next(iter(sorted((Path(torch_origin).parent / "lib").glob("libtorch_cpu.so*"))), None)

    def __exit__(self, *exc: object) -> None:
        if self.mount is not None and os.path.ismount(self.mount):
            _run("umount", str(self.mount))
        if self.loop is not None:
            _run("losetup", "--detach", self.loop)
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)


def du_bytes(path: Path) -> int:
    """The bytes of the files under ``path`` (``du -sb``)."""
    return int(_run("du", "-sb", str(path)).split()[0])


def distributions(python: Path | str) -> set[str]:
    """The names of the distributions installed in ``python``'s environment (lower case)."""
    code = "import importlib.metadata as m, json; print(json.dumps([d.metadata['Name'] for d in m.distributions()]))"
    return {name.lower() for name in json.loads(_run(str(python), "-c", code)) if name}


def _run(*cmd: str) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def drop_page_cache() -> str | None:
    """Write back dirty pages and drop the kernel's clean page cache (``echo 3 > drop_caches``),
    so that the next server's file reads are charged to its own cgroup. None, or why not."""
    os.sync()
    try:
        DROP_CACHES.write_text("3\n")
    except OSError as err:
        return (
            f"the page cache could not be dropped ({err.strerror or err}): files already cached "
            "(torch's libraries, the model) are not charged to the server's cgroup, so its peak reads low"
        )
    return None


class PeakMemory:
    """Samples, in a thread, a process tree's resident memory (``peak_rss``, the largest sum)
    and the cgroup's usage, keeping memory.stat from the sample where the usage was highest."""

    def __init__(self, pid: int, cgroup: Cgroup) -> None:
        import psutil

        self.proc = psutil.Process(pid)
        self.cgroup = cgroup
        self.peak_rss = 0
        self.peak_usage = 0
        self.stat_at_peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            with contextlib.suppress(psutil.Error):
                total = self.proc.memory_info().rss
                for child in self.proc.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        total += child.memory_info().rss
                self.peak_rss = max(self.peak_rss, total)
            with contextlib.suppress(OSError, ValueError):
                usage = self.cgroup.read("memory", "memory.usage_in_bytes")
                if usage > self.peak_usage:
                    self.peak_usage, self.stat_at_peak = usage, self.cgroup.memory_stat()
            self._stop.wait(SAMPLE_S)

    def stop(self) -> float:
        """Stop sampling; the peak RSS in MB."""
        self._stop.set()
        self._thread.join()
        return round(self.peak_rss / 2**20, 1)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, its waited-for children and its live children."""
    import psutil

    proc = psutil.Process(pid)
    times = proc.cpu_times()
    total = times.user + times.system + times.children_user + times.children_system
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            t = child.cpu_times()
            total += t.user + t.system
    return total


def torch_library() -> Path | None:
    """torch's main shared library in this Python's environment, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    lib = Path(next(iter(spec.submodule_search_locations))).resolve() / "lib"  # as /proc/*/maps names it
    return next(iter(sorted(lib.glob("libtorch_cpu.so*"))), None)


def read_ahead_kb(path: Path) -> int | None:
    """How far the kernel reads ahead on the block device holding ``path`` (None if unknown,
    e.g. on overlayfs). Every page fault in a mapped library reads that much around it."""
    dev = os.stat(path).st_dev
    block = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    for queue in (block / "queue", block / ".." / "queue"):  # a disk, or a partition's disk
        with contextlib.suppress(OSError, ValueError):
            return int((queue / "read_ahead_kb").read_text())
    return None


def processes_mapping(path: Path) -> list[int]:
    """Pids of the processes that map ``path`` into memory (its pages are charged to them)."""
    pids = []
    for maps in Path("/proc").glob("[0-9]*/maps"):
        with contextlib.suppress(OSError):
            if str(path) in maps.read_text():
                pids.append(int(maps.parent.name))
    return pids


def fresh_sentences(n: int, T: int = 16) -> list[str]:
    """``n`` T-token sentences that no other part of the bench sends (shuffled word orders)."""
    import attn_core as ac

    rng = random.Random("server_cpu_ms")
    out = []
    while len(out) < n:
        text = " ".join(rng.sample(WORDS, T - 1)) + "."
        if len(ac.tokenize(text, max_tokens=T + 10)) == T and text not in out:
            out.append(text)
    return out


def sentences_from_child(n: int) -> list[str]:
    """fresh_sentences(n), drawn in a short-lived process: attn_core imports numpy, and a library
    that this process kept mapped would never be charged to a server's cgroup."""
    code = "import json, sys, perf_cloud; print(json.dumps(perf_cloud.fresh_sentences(int(sys.argv[1]))))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parent), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", code, str(n)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


async def server_cpu_ms(server: Server, step_url: str, labels: dict, texts: list[str]) -> float:
    """The server's CPU per sentence change on the step page (T = 16), median-free: total / N,
    over ``texts[1:]`` after a warm-up change to ``texts[0]``."""
    reruns = len(texts) - 1
    session = await perf_protocol.ProtocolSession.open(server.url, step_url)
    try:
        await session.change(labels["sentence"], text=texts[0])  # warm-up
        await asyncio.sleep(0.5)
        before = cpu_seconds(server.proc.pid)
        for text in texts[1:]:
            await session.change(labels["sentence"], text=text)
        await asyncio.sleep(0.3)  # let the last messages go out
        return round((cpu_seconds(server.proc.pid) - before) / reruns * 1000.0, 1)
    finally:
        await session.close()


async def _one_limit(
    cpus: float,
    urls: tuple[str, str],
    labels: dict,
    sessions: int,
    cpu_texts: list[str] | None,
    same_input: bool = False,
    env: tuple[Path | None, Path | None] = (None, None),
) -> dict:
    """A fresh server limited to ``cpus`` CPUs and MEMORY_MB: the model page, then the class
    (then, with ``same_input``, the class again, every student making the same changes; with
    ``cpu_texts``, then the server's CPU per change). ``env``: the server's python and that
    environment's torch library (None: this one's)."""
    step_url, model_url = urls
    python, lib = env
    cgroup = Cgroup()
    server = CloudServer(cgroup, python)
    sampler = None
    lib = lib or torch_library()
    result: dict = {"shared_torch": [pid for pid in processes_mapping(lib) if pid != os.getpid()] if lib else []}
    try:
        cgroup.limit(cpus, MEMORY_MB)
        result["page_cache"] = drop_page_cache()
        server.start()
        await server.healthy(timeout_s=180.0)
        sampler = PeakMemory(server.proc.pid, cgroup)
        t0 = time.perf_counter()
        model = await perf_protocol.ProtocolSession.open(server.url, model_url)  # loads the model
        model_s = time.perf_counter() - t0
        await model.close()
        cpu = functools.partial(cpu_seconds, server.proc.pid)
        result.update(await perf_protocol.load(server.url, step_url, labels, sessions, server_cpu=cpu))
        if same_input:
            result["same_input"] = await perf_protocol.load(
                server.url, step_url, labels, sessions, same=True, server_cpu=cpu
            )
        if cpu_texts:
            result["server_cpu_ms"] = await server_cpu_ms(server, step_url, labels, cpu_texts)
        result["model_first_load_s"] = round(model_s, 2)
        result["alive"] = server.proc.poll() is None
    finally:
        peak = sampler.stop() if sampler is not None else None
        server.stop()
        if sampler is not None:  # the cgroup's own counters, read before it is removed
            result["failcnt"] = cgroup.read("memory", "memory.failcnt")
            result["max_usage_mb"] = round(cgroup.read("memory", "memory.max_usage_in_bytes") / 2**20, 1)
            result["oom_kills"] = cgroup.oom_kills()
            result["stat_at_peak"] = {k: sampler.stat_at_peak.get(k) for k in STAT_KEYS}
        cgroup.remove()
    result["peak_rss_mb"] = peak
    return result


async def _plain_server_cpu(step_url: str, labels: dict) -> float:
    server = Server()
    try:
        server.start()
        await server.healthy()
        return await server_cpu_ms(server, step_url, labels, sentences_from_child(CPU_RERUNS + 1))
    finally:
        server.stop()


async def _limits(urls: tuple[str, str], labels: dict, sessions: int, cpu_texts: list[str] | None, env) -> dict:
    """CPU_LIMITS suffix -> _one_limit's result, each a fresh server run by ``env``."""
    runs = {}
    for n, (suffix, cpus) in enumerate(CPU_LIMITS.items()):
        texts = cpu_texts if n == 0 else None
        runs[suffix] = await _one_limit(cpus, urls, labels, sessions, texts, same_input=cpus < 1, env=env)
    return runs


def _host_disk_wanted() -> bool:
    """Whether to measure again on this machine's own disk (BENCH_CLOUD_HOST_DISK=0: no)."""
    return os.environ.get("BENCH_CLOUD_HOST_DISK", "1") != "0"


async def _phase(quick: bool, results: dict, notes: dict) -> None:
    urls = (url_path("step_by_step.py"), url_path("real_model.py"))
    labels = step_labels()
    why = Cgroup.unavailable()
    if why:
        results["load_cloud"] = {"p95_ms_cpu1": None, "p95_ms_cpu05": None, "errors": None, "limit_hits": None}
        for section, key in (("load_cloud", "all"), ("memory_mb", "cloud_peak"), ("memory_mb", "cloud_cgroup_peak")):
            notes.setdefault(section, {})[key] = f"null: {why}"
        results["server_cpu_ms"]["step_T16"] = await _plain_server_cpu(urls[0], labels)
        return
    sessions = 5 if quick else SESSIONS
    cpu_texts = sentences_from_child(CPU_RERUNS + 1)
    cloud_notes = notes.setdefault("load_cloud", {})
    host_ra = read_ahead_kb(Path(sys.prefix))
    no_disk = DefaultReadAheadDisk.unavailable()
    disk = None
    if no_disk is None:
        try:
            disk = DefaultReadAheadDisk().__enter__()
        except (OSError, RuntimeError, subprocess.CalledProcessError) as err:
            detail = getattr(err, "stderr", None) or str(err)
            no_disk = f"making it failed: {detail.strip()[:200]}"
    try:
        env = (disk.python, disk.torch_lib) if disk else (None, None)
        measured = disk.copy if disk else Path(sys.prefix)
        cloud_install = disk is not None and disk.how == "install"
        install_mb = round(du_bytes(measured) / 2**20)
        packages = distributions(env[0] or sys.executable)
        runs = await _limits(urls, labels, sessions, cpu_texts, env)
        primary_ra = read_ahead_kb(measured)
        made = "the Cloud install (requirements.txt, as `make run` installs it)"
        made = made if cloud_install else "a copy of this environment"
        disk_text = (
            f"{made} on an ext4 loop device reading {primary_ra} KB ahead{' (direct I/O)' if disk.direct_io else ''}"
            if disk
            else f"this environment, on this machine's own disk ({host_ra} KB read-ahead)"
        )
    finally:
        if disk is not None:
            disk.__exit__()
    if no_disk:
        cloud_notes["disk"] = (
            f"measured this environment on this machine's own disk, not the Cloud install on a "
            f"{LINUX_READ_AHEAD_KB} KB read-ahead disk ({no_disk})"
        )
    if not cloud_install:
        cloud_notes["install"] = (
            "the server ran from this environment, not from a fresh install of requirements.txt"
            f"{f' (the install failed: {disk.install_error})' if disk and disk.install_error else ''}: packages "
            "the Cloud install does not have change what the server imports (transformers imports scipy whenever "
            "it is installed), so the peak may read high; install_mb is this environment's size"
        )
    cloud = _summary(runs, sessions, results, cloud_notes)
    cloud["read_ahead_kb"] = primary_ra
    cloud["install_mb"] = install_mb
    cloud["details"]["disk"] = disk_text
    if (primary_ra or 0) > LINUX_READ_AHEAD_KB:
        cloud_notes["read_ahead"] = (
            f"the disk under this Python environment reads {primary_ra} KB ahead (Linux's default is "
            f"{LINUX_READ_AHEAD_KB} KB): every page fault in torch's library caches that much around it, and the "
            "cgroup is charged for it"
        )
    if disk is not None and _host_disk_wanted():  # the same runs from this environment, on this machine's disk
        host = await _limits(urls, labels, sessions, None, (None, None))
        results["memory_mb"]["cloud_cgroup_peak_host_disk"] = max(r["max_usage_mb"] for r in host.values())
        extra = sorted(distributions(sys.executable) - packages)
        cloud["details"]["packages_only_in_host_environment"] = extra
        if extra and cloud_install:
            cloud_notes["host_environment"] = (
                f"this environment has {len(extra)} package(s) that the Cloud install has not "
                f"({', '.join(extra[:10])}{', ...' if len(extra) > 10 else ''}): the *_host_disk figures are "
                "for its imports, not only for another disk"
            )
        cloud["limit_hits_host_disk"] = sum(r["failcnt"] for r in host.values())
        cloud["read_ahead_kb_host_disk"] = host_ra
        for suffix, run in host.items():
            cloud["details"][f"cgroup_peak_mb_{suffix}_host_disk"] = run["max_usage_mb"]
            cloud["details"][f"limit_hits_{suffix}_host_disk"] = run["failcnt"]
            cloud["details"][f"cgroup_at_peak_mb_{suffix}_host_disk"] = run["stat_at_peak"]
        shared = {pid for run in host.values() for pid in run["shared_torch"]}
        if shared:
            cloud_notes["shared_torch_host_disk"] = (
                f"on this machine's own disk, {len(shared)} other process(es) had the environment's torch library "
                "mapped: its pages stay charged to them, so cloud_cgroup_peak_host_disk reads low"
            )
    elif disk is not None:
        cloud_notes["host_disk"] = "not measured on this machine's own disk (BENCH_CLOUD_HOST_DISK=0)"
    results["load_cloud"] = cloud


def _summary(runs: dict, sessions: int, results: dict, cloud_notes: dict) -> dict:
    """load_cloud's keys from one _limits (and memory_mb's cloud_peak, cloud_cgroup_peak)."""
    cloud: dict = {"memory_limit_mb": MEMORY_MB, "sessions": sessions}
    details: dict = {}
    shared: set[int] = set()
    for suffix, run in runs.items():
        shared.update(run["shared_torch"])
        if "server_cpu_ms" in run:
            results["server_cpu_ms"]["step_T16"] = run["server_cpu_ms"]
        for key in ("p50_ms", "p95_ms", "max_ms", "errors", "server_cpu_ms_per_change", "model_first_load_s"):
            cloud[f"{key}_{suffix}"] = run.get(key)
        cloud[f"peak_rss_mb_{suffix}"], cloud[f"oom_kills_{suffix}"] = run["peak_rss_mb"], run["oom_kills"]
        cloud[f"cgroup_peak_mb_{suffix}"], cloud[f"limit_hits_{suffix}"] = run["max_usage_mb"], run["failcnt"]
        details[f"cgroup_at_peak_mb_{suffix}"] = run["stat_at_peak"]
        if run["page_cache"]:
            cloud_notes["page_cache"] = run["page_cache"]
        if "same_input" in run:
            same = run["same_input"]
            cloud[f"p50_ms_{suffix}_same_input"], cloud[f"p95_ms_{suffix}_same_input"] = same["p50_ms"], same["p95_ms"]
            cloud[f"errors_{suffix}_same_input"] = same["errors"]
            cloud[f"server_cpu_ms_per_change_{suffix}_same_input"] = same.get("server_cpu_ms_per_change")
        if run["error_samples"]:
            cloud_notes[f"errors_{suffix}"] = "; ".join(run["error_samples"])[:300]
        if not run["alive"]:
            cloud_notes[f"server_{suffix}"] = "the server died (out of memory?)"
    cloud["errors"] = sum(v or 0 for k, v in cloud.items() if k.startswith("errors_"))
    cloud["limit_hits"] = sum(run["failcnt"] for run in runs.values())
    cloud["page_cache_dropped"] = all(run["page_cache"] is None for run in runs.values())
    cloud["other_processes_mapping_torch"] = len(shared)
    if shared:
        cloud_notes["shared_torch"] = (
            f"{len(shared)} other process(es) had this environment's torch library mapped (pids "
            f"{', '.join(map(str, sorted(shared)[:8]))}): its pages stay charged to them, so the cgroup peak reads "
            "low; run the bench from a virtual environment of its own"
        )
    cloud["details"] = details
    results["memory_mb"]["cloud_peak"] = max(run["peak_rss_mb"] for run in runs.values())
    results["memory_mb"]["cloud_cgroup_peak"] = max(run["max_usage_mb"] for run in runs.values())
    return cloud


def run(quick: bool, results: dict, notes: dict) -> None:
    """Fill results['load_cloud'], results['memory_mb']['cloud_peak'] and ['cloud_cgroup_peak'],
    and results['server_cpu_ms']['step_T16'] (the memory ones null, with a note, without cgroups)."""
    results.setdefault("memory_mb", {}).setdefault("cloud_peak", None)
    results["memory_mb"].setdefault("cloud_cgroup_peak", None)
    results.setdefault("server_cpu_ms", {"step_T16": None})
    asyncio.run(_phase(quick, results, notes))
