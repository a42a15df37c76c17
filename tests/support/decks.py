"""Each long page's Deck of sections, built here from its words module as the page builds it
(lessons/<lesson>/page.py), so a test can compute the progress line and the headings a page
shows ("Step 4 of 9 · Queries, keys and values") instead of copying them."""

from __future__ import annotations

from importlib import import_module

from ui.present import Deck

# url path -> (lesson, its sections' attribute in words, the page's step key, Deck's other arguments)
_DECKS = {
    "step-by-step": ("step_by_step", "STEPS", "sbs_step", {"noun": "Step", "counted": "COUNTED"}),
    "softmax-lab": ("softmax_lab", "SECTIONS", "lab_step", {"numbered": True}),
    "multi-head": ("multi_head", "SECTIONS", "mh_step", {"numbered": True}),
    "masks-and-cost": ("masks_cost", "SECTIONS", "masks_step", {}),
    "cross-attention": ("cross_attention", "SECTIONS", "cross_step", {"numbered": True}),
    "attention-in-a-transformer": ("in_a_transformer", "SECTIONS", "tf_step", {"numbered": True}),
    "real-model": ("real_model", "VIEWS", "rm_view", {"noun": "View", "by_name": True}),
    "decoder": ("decoder", "SECTIONS", "dec_step", {"numbered": True}),
    "articles-checked": ("articles", "SECTIONS", "art_step", {"numbered": True}),
}


def deck(path: str) -> Deck | None:
    """The page's Deck (None for a page without sections)."""
    if path not in _DECKS:
        return None
    lesson, sections, step_key, kwargs = _DECKS[path]
    words = import_module(f"lessons.{lesson}.words")
    kwargs = {k: getattr(words, v) if k == "counted" else v for k, v in kwargs.items()}
    return Deck(getattr(words, sections), step_key=step_key, **kwargs)


def progress_lines(path: str) -> list[str]:
    """The progress line of every section, in order, as the page shows it (no bold marks)."""
    found = deck(path)
    return [] if found is None else [found.progress(k).replace("**", "") for k in range(len(found.sections))]
