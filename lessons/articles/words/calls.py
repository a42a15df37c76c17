"""The page's sections, settings and opening text, and its one compute call."""

from __future__ import annotations

from attn_core import article_checks as ar

SECTIONS = {
    "dot": "q · k by hand: the 3-number example",
    "causal": "The causal mask table",
    "rows": "Softmax over rows or over columns?",
    "shapes": f"Shapes: Q is {ar.SHAPES_T} × {ar.SHAPES_D_K}",
    "conventions": "Column vectors or row vectors",
    "winner": "Is softmax winner-takes-all?",
}
ROW_OF_FOUR = ("causal", "rows", "winner")  # four charts: on a projector in one row, the text below them
EDITABLE = tuple(name for name in ar.DEFAULT_VECTORS if name != "x_cat")  # x_cat has no W to act on
OURS = tuple(name for name in EDITABLE if name not in ar.GIVEN)
SATURATED = 0.9  # a row whose largest weight is at least this is called saturated
SCALE_LABEL = "Standard deviation s of the q and k entries (mean 0)"

INTRO = (
    "The introductory articles about self-attention that served as source material for this app are mostly "
    "right, but a few of their worked examples are not. This page redoes those examples with "
    "the app's own engine and shows, for each, what the article wrote and what the arithmetic really gives."
)


def lesson(texts: tuple[tuple[str, str], ...], scale: float, seed: int) -> ar.ArticlesLesson:
    """The page's one attn_core call."""
    return ar.articles_lesson(dict(texts), scale=scale, seed=seed)
