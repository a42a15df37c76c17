"""Shared pieces of the bench: timing helpers, inputs of an exact token count, and widget
labels looked up in the page sources (so a renamed label does not break the bench).
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEP_PAGE = ROOT / "lessons" / "step_by_step" / "page.py"
MODEL_PAGE = ROOT / "lessons" / "real_model" / "page.py"
DECODER_PAGE = ROOT / "lessons" / "decoder" / "page.py"
HOME_PAGE = ROOT / "lessons" / "home" / "page.py"
COMMON = ROOT / "ui" / "common.py"
APP = ROOT / "app.py"

# Plain words that are one token for attn_core.tokenize and one WordPiece for BERT's vocabulary.
WORDS = (
    "the", "cat", "sat", "on", "a", "mat", "and", "the", "dog", "lay", "by", "the", "door", "while", "one", "bird",
    "sang", "in", "an", "old", "tree", "near", "our", "small", "house", "so", "every", "child", "ran", "out", "to",
    "see", "it", "fly", "over", "green", "fields", "under", "blue", "sky",
)  # fmt: skip


class Unavailable(Exception):  # noqa: N818 - it reads as "the measure is unavailable"
    """A measure cannot be taken (a page or package is missing): it is reported as null."""


def median_ms(samples_s: list[float]) -> float:
    return round(statistics.median(samples_s) * 1000.0, 2)


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of ``fn`` takes."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation, as numpy's default."""
    xs = sorted(values)
    if not xs:
        raise ValueError("no values")
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


# --------------------------------------------------------------------------- inputs


def latency_summary(ms: list[float], sessions: int, changes: int = 3) -> dict:
    """The load tests' shared numbers: how many changes were timed and their percentiles (ms)."""
    return {
        "sessions": sessions,
        "changes_per_session": changes,
        "changes_timed": len(ms),
        "p50_ms": round(percentile(ms, 50), 1) if ms else None,
        "p95_ms": round(percentile(ms, 95), 1) if ms else None,
        "max_ms": round(max(ms), 1) if ms else None,
    }


def words(n: int, variant: int = 0) -> list[str]:
    """n words from WORDS, starting at a different place for each variant."""
    start = (variant * 7) % len(WORDS)
    return [WORDS[(start + i) % len(WORDS)] for i in range(n)]


def step_sentence(T: int, variant: int = 0) -> str:
    """A sentence that attn_core.tokenize splits into exactly T tokens (a final '.')."""
    import attn_core as ac

    text = " ".join(words(T - 1, variant)) + "."
    got = len(ac.tokenize(text, max_tokens=T + 10))
    if got != T:
        raise AssertionError(f"built a {got}-token sentence, wanted {T}")
    return text


def bert_sentence(tokenizer, T: int, variant: int = 0) -> str:
    """A sentence that the BERT tokenizer turns into exactly T ids ([CLS] ... [SEP])."""
    n = T - 2
    for _ in range(8):
        text = " ".join(words(n, variant))
        got = len(tokenizer(text)["input_ids"])
        if got == T:
            return text
        n += T - got
    raise AssertionError(f"could not build a {T}-token BERT input")


def bert_tokenizer():
    """The embedded model's tokenizer alone (no weights loaded)."""
    from transformers import AutoTokenizer

    from attn_core import models

    return AutoTokenizer.from_pretrained(models.model_source(models.DEFAULT_MODEL), local_files_only=True)


# --------------------------------------------------------------------------- labels


def _source(path: Path) -> str:
    if not path.is_file():
        raise Unavailable(f"{path.relative_to(ROOT)} does not exist yet")
    return path.read_text(encoding="utf-8")


def _first(pattern: str, text: str, default: str | None = None) -> str:
    m = re.search(pattern, text, flags=re.S)
    if m:
        return m.group(1)
    if default is None:
        raise Unavailable(f"no match for {pattern!r}")
    return default


def step_labels() -> dict[str, str]:
    """The step page's sentence box and d_k widget labels, read from the source."""
    src = _source(STEP_PAGE)
    common = COMMON.read_text(encoding="utf-8") if COMMON.is_file() else ""
    sentence = _first(r"sentence_input\([^)]*label=\"([^\"]+)\"", src, "")
    if not sentence:
        sentence = _first(r"def sentence_input\(.*?label: str = \"([^\"]+)\"", common, "Sentence")
    d_k = _first(r"st\.(?:slider|number_input|select_slider)\(\s*f?\"(d_k[^\"{]*)", src, "d_k")
    return {"sentence": sentence, "d_k": d_k}


def model_labels() -> dict[str, str]:
    """The real-model page's sentence A box and layer widget labels."""
    src = _source(MODEL_PAGE)
    sentence = _first(r"st\.text_(?:area|input)\(\s*\"(Sentence[^\"]*)\"", src, "Sentence A")
    layer = _first(r"(?:_pick_index|st\.selectbox|st\.slider|st\.number_input)\(\s*\"(Layer[^\"]*)\"", src, "Layer")
    return {"sentence": sentence, "layer": layer}


def home_title() -> str:
    return _first(r"st\.title\(\s*\"([^\"]+)\"", _source(HOME_PAGE), "Self-Attention Explorer")


def url_path(page_file: str) -> str:
    """The url path of the lesson ``page_file`` names ("step_by_step.py": lessons/step_by_step/page.py),
    from the one page list (lessons/pages.py)."""
    from lessons import pages

    lesson = Path(page_file).stem
    found = next((p for p in pages.PAGES if p.lesson == lesson), None)
    if found is None:
        raise Unavailable(f"no page lessons/{lesson}/page.py in lessons/pages.py")
    return found.url_path
