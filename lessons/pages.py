"""Every page of the app, once, in teaching order: plain data, no Streamlit.

app.py builds its ``st.Page`` list from ``PAGES``; the footer's next lesson, Home's path, the
Class page and the tests all read it here. A page on the student's path (``on_path``) is a
lesson; the Class page is a tool for teachers and comes last, off the path.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    """One page: its script (from the repository root), its title, icon and address."""

    script: str  # "lessons/step_by_step/page.py"
    title: str
    icon: str  # a Material icon name, drawn from Streamlit's bundled font (no network)
    url_path: str  # "" for Home, the default page
    blurb: str  # one line: what the student does there
    on_path: bool = True  # a lesson on the student's path (Home's "Start here", the footer's next lesson)

    @property
    def lesson(self) -> str:
        """The lesson's folder name: "step_by_step"."""
        return self.script.split("/")[1]


PAGES: tuple[PageInfo, ...] = (
    PageInfo(
        "lessons/home/page.py",
        "Home",
        ":material/home:",
        "",
        "Type a sentence and watch one attention head answer, see what training changes in a head, and start the path.",
    ),
    PageInfo(
        "lessons/step_by_step/page.py",
        "Step by step",
        ":material/stairs:",
        "step-by-step",
        "One head on your sentence: every matrix from the tokens to the output, and one cell worked through by hand.",
    ),
    PageInfo(
        "lessons/softmax_lab/page.py",
        "Softmax and scaling lab",
        ":material/science:",
        "softmax-lab",
        "Why the scores are divided by √d_k, what happens when they are not, and why a softmax and not a sigmoid.",
    ),
    PageInfo(
        "lessons/multi_head/page.py",
        "Multi-head",
        ":material/view_column:",
        "multi-head",
        "Several heads look at one sentence in different ways, then W_O mixes them.",
    ),
    PageInfo(
        "lessons/masks_cost/page.py",
        "Masks and cost",
        ":material/grid_on:",
        "masks-and-cost",
        "Causal, sliding-window and dilated masks, and why global attention costs T².",
    ),
    PageInfo(
        "lessons/cross_attention/page.py",
        "Cross-attention",
        ":material/swap_horiz:",
        "cross-attention",
        "Queries from one sentence, keys and values from another, as in translation.",
    ),
    PageInfo(
        "lessons/in_a_transformer/page.py",
        "Attention in a transformer",
        ":material/account_tree:",
        "attention-in-a-transformer",
        "Where attention sits in a transformer block: W_O, the residual, LayerNorm, the feed-forward network, "
        "padding, and one word's meanings across layers.",
    ),
    PageInfo(
        "lessons/real_model/page.py",
        "Real model",
        ":material/memory:",
        "real-model",
        "The heads of all-MiniLM-L6-v2, a trained BERT model, in head, model and neuron views.",
    ),
    PageInfo(
        "lessons/decoder/page.py",
        "Decoder (causal)",
        ":material/east:",
        "decoder",
        "A small decoder trained for this app, its causal heads, and the induction head it learned.",
    ),
    PageInfo(
        "lessons/articles/page.py",
        "The articles, checked",
        ":material/fact_check:",
        "articles-checked",
        "The worked examples of popular attention articles, redone, with their slips shown.",
    ),
    PageInfo(
        "lessons/class_room/page.py",
        "Class",
        ":material/groups:",
        "class",
        "For teachers: start a class, and your students' screens follow yours, with a live predict-first poll.",
        on_path=False,
    ),
)
LESSONS: tuple[PageInfo, ...] = tuple(p for p in PAGES if p.on_path)
HOME = PAGES[0]


def find(script: str) -> PageInfo:
    """The page whose script is ``script`` (a path from the repository root, or an absolute
    path ending in it, as a page's ``__file__``)."""
    wanted = script.replace("\\", "/")
    for info in PAGES:
        if wanted == info.script or wanted.endswith("/" + info.script):
            return info
    raise KeyError(f"no page has the script {script!r}; the pages are {[p.script for p in PAGES]}")


def next_lesson(script: str) -> PageInfo | None:
    """The lesson after ``script`` on the student's path; None after the last lesson (and for a
    page off the path)."""
    info = find(script)
    if info not in LESSONS:
        return None
    k = LESSONS.index(info)
    return LESSONS[k + 1] if k + 1 < len(LESSONS) else None
