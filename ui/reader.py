"""Where the reader of a page is: on a screen, on a projector (presenter mode), one section at
a time, or following a class. Plain Python, no Streamlit: the words modules take a Reader
(ui.present.reader() makes this run's) and place their location words by it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reader:
    presenting: bool = False  # presenter mode: the page's settings wait in the sidebar
    paged: bool = False  # one section at a time (presenter mode, a student's choice, or a class)
    following: bool = False  # a student following a teacher who presents

    @property
    def in_sidebar(self) -> str:
        """Where the page's sentence box and settings are, said after naming them: " in the
        sidebar" in presenter mode (they wait there), else "" (they are on the page)."""
        return " in the sidebar" if self.presenting else ""

    @property
    def later(self) -> str:
        """Where the rest of the page is: "in the steps that follow" when one section is shown
        at a time, else "below"."""
        return "in the steps that follow" if self.paged else "below"


SCREEN = Reader()  # a student at a screen, the whole page shown
PROJECTOR = Reader(presenting=True, paged=True)
