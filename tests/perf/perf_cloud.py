"""cloud: the server alone in a cgroup sized like Streamlit Community Cloud's smallest machine.

Community Cloud gives an app between 0.078 and 2 CPUs and between 690 MB and 2.7 GB of
memory (GitHub issue #16). For each CPU limit in CPU_LIMITS a fresh `streamlit run app.py`
starts inside a cgroup v1 pair (cpu: cfs_quota_us / cfs_period_us; memory: limit_in_bytes
= MEMORY_MB), put there before it runs any Python: a small shell wrapper writes its own pid
to both cgroup.procs files, then execs streamlit. Then, as in the earlier measurement, the
real-model page is loaded (the model is in memory), and 30 browser-less protocol clients
(perf_protocol.py) make their three changes on the step page, all at once. At half a CPU
the class then does it again with every student making the same changes (a class following
the teacher's example: the runs share the engine's cache and the ready charts).

Written:
- load_cloud.p95_ms_cpu1 / p95_ms_cpu05 (and p50, max, errors): the class of 30 at each
  limit, timed per change from sending it to script_finished; server_cpu_ms_per_change_*:
  the server's CPU over those changes divided by their number; *_same_input: the same class
  all on the same sentences;
- load_cloud.memory_failcnt: the cgroup's memory.failcnt (times usage hit the limit; in
  cgroup v1 page cache counts, so the kernel reclaiming cache also counts);
- memory_mb.cloud_peak: the server's peak resident memory, its process tree's RSS sampled
  every SAMPLE_S (the cgroup's own usage figure includes page cache, so it is not used);
- server_cpu_ms.step_T16: the server's CPU time (user + system, children included) per
  rerun of the step page at T = 16, from the process's own counters before and after
  CPU_RERUNS sentence changes by one protocol client, each a sentence no run saw before
  (a cache miss, as a student typing).

The cgroups are children of the cgroups this bench runs in (so any limit above still
applies); they are emptied and removed afterwards. Without root or cgroup v1 controllers
load_cloud and memory_mb.cloud_peak are null with a note, and server_cpu_ms is measured on
a server without limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import threading
import time
from pathlib import Path

import perf_protocol
from perf_browser import Server
from perf_inputs import WORDS, Unavailable, step_labels, url_path

MEMORY_MB = 690  # Community Cloud's smallest memory
CPU_LIMITS = {"cpu1": 1.0, "cpu05": 0.5}  # key suffix -> CPUs
PERIOD_US = 100_000
SESSIONS = 30
CPU_RERUNS = 20
SAMPLE_S = 0.1
CGROUP_ROOT = Path("/sys/fs/cgroup")
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
    """perf_browser's server, started inside a cgroup."""

    def __init__(self, cgroup: Cgroup) -> None:
        super().__init__()
        self.cgroup = cgroup

    def command(self) -> list[str]:
        return self.cgroup.wrap(super().command())


class PeakRss:
    """Samples a process tree's resident memory in a thread; ``peak_mb`` is the largest sum."""

    def __init__(self, pid: int) -> None:
        import psutil

        self.proc = psutil.Process(pid)
        self.peak = 0
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
                self.peak = max(self.peak, total)
            self._stop.wait(SAMPLE_S)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return round(self.peak / 2**20, 1)


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


async def server_cpu_ms(server: Server, step_url: str, labels: dict, reruns: int = CPU_RERUNS) -> float:
    """The server's CPU per sentence change on the step page (T = 16), median-free: total / N."""
    session = await perf_protocol.ProtocolSession.open(server.url, step_url)
    try:
        texts = fresh_sentences(reruns + 1)
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
    cpus: float, urls: tuple[str, str], labels: dict, sessions: int, with_cpu: bool, same_input: bool = False
) -> dict:
    """A fresh server limited to ``cpus`` CPUs and MEMORY_MB: the model page, then the class
    (then, with ``same_input``, the class again, every student making the same changes)."""
    step_url, model_url = urls
    cgroup = Cgroup()
    server = CloudServer(cgroup)
    sampler = None
    try:
        cgroup.limit(cpus, MEMORY_MB)
        server.start()
        await server.healthy(timeout_s=180.0)
        sampler = PeakRss(server.proc.pid)
        t0 = time.perf_counter()
        model = await perf_protocol.ProtocolSession.open(server.url, model_url)  # loads the model
        model_s = time.perf_counter() - t0
        await model.close()
        cpu = functools.partial(cpu_seconds, server.proc.pid)
        result = await perf_protocol.load(server.url, step_url, labels, sessions, server_cpu=cpu)
        if same_input:
            result["same_input"] = await perf_protocol.load(
                server.url, step_url, labels, sessions, same=True, server_cpu=cpu
            )
        if with_cpu:
            result["server_cpu_ms"] = await server_cpu_ms(server, step_url, labels)
        result["model_first_load_s"] = round(model_s, 2)
        result["failcnt"] = cgroup.read("memory", "memory.failcnt")
        result["oom_kills"] = cgroup.oom_kills()
        result["alive"] = server.proc.poll() is None
    finally:
        peak = sampler.stop() if sampler is not None else None
        server.stop()
        cgroup.remove()
    result["peak_rss_mb"] = peak
    return result


async def _plain_server_cpu(step_url: str, labels: dict) -> float:
    server = Server()
    try:
        server.start()
        await server.healthy()
        return await server_cpu_ms(server, step_url, labels)
    finally:
        server.stop()


async def _phase(quick: bool, results: dict, notes: dict) -> None:
    urls = (url_path("step_by_step.py"), url_path("real_model.py"))
    labels = step_labels()
    why = Cgroup.unavailable()
    if why:
        results["load_cloud"] = {"p95_ms_cpu1": None, "p95_ms_cpu05": None, "errors": None}
        for section, key in (("load_cloud", "all"), ("memory_mb", "cloud_peak")):
            notes.setdefault(section, {})[key] = f"null: {why}"
        results["server_cpu_ms"]["step_T16"] = await _plain_server_cpu(urls[0], labels)
        return
    sessions = 5 if quick else SESSIONS
    cloud: dict = {"memory_limit_mb": MEMORY_MB, "sessions": sessions}
    peaks = []
    for n, (suffix, cpus) in enumerate(CPU_LIMITS.items()):
        run = await _one_limit(cpus, urls, labels, sessions, with_cpu=n == 0, same_input=cpus < 1)
        if "server_cpu_ms" in run:
            results["server_cpu_ms"]["step_T16"] = run["server_cpu_ms"]
        for key in ("p50_ms", "p95_ms", "max_ms", "errors", "server_cpu_ms_per_change", "model_first_load_s"):
            cloud[f"{key}_{suffix}"] = run.get(key)
        cloud[f"peak_rss_mb_{suffix}"], cloud[f"oom_kills_{suffix}"] = run["peak_rss_mb"], run["oom_kills"]
        cloud[f"memory_failcnt_{suffix}"] = run["failcnt"]
        if "same_input" in run:
            same = run["same_input"]
            cloud[f"p50_ms_{suffix}_same_input"], cloud[f"p95_ms_{suffix}_same_input"] = same["p50_ms"], same["p95_ms"]
            cloud[f"errors_{suffix}_same_input"] = same["errors"]
            cloud[f"server_cpu_ms_per_change_{suffix}_same_input"] = same.get("server_cpu_ms_per_change")
        peaks.append(run["peak_rss_mb"])
        if run["error_samples"]:
            notes.setdefault("load_cloud", {})[f"errors_{suffix}"] = "; ".join(run["error_samples"])[:300]
        if not run["alive"]:
            notes.setdefault("load_cloud", {})[f"server_{suffix}"] = "the server died (out of memory?)"
    cloud["errors"] = sum(v or 0 for k, v in cloud.items() if k.startswith("errors_"))
    cloud["memory_failcnt"] = sum(cloud[f"memory_failcnt_{s}"] for s in CPU_LIMITS)
    results["load_cloud"] = cloud
    results["memory_mb"]["cloud_peak"] = max(peaks)


def run(quick: bool, results: dict, notes: dict) -> None:
    """Fill results['load_cloud'], results['memory_mb']['cloud_peak'] and
    results['server_cpu_ms']['step_T16'] (the first two null, with a note, without cgroups)."""
    results.setdefault("memory_mb", {}).setdefault("cloud_peak", None)
    results.setdefault("server_cpu_ms", {"step_T16": None})
    asyncio.run(_phase(quick, results, notes))
