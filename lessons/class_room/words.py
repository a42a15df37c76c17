"""The Class page's words and plain computations (no Streamlit): the join link and its QR code,
the sentences the page computes (how many follow, where the class is), and its longer prose,
including the note on where a class is kept and how to keep it across a reboot."""

from __future__ import annotations

import io
from urllib.parse import urlsplit, urlunsplit

import segno

from ui.markup import md_escape

CLASS_PATH = "class"  # this page's url path (lessons/pages.py)
FALLBACK_URL = "http://localhost:8501"  # where no browser said its address (AppTest)
QR_BORDER = 4  # modules of white margin, as the QR standard asks
SECRETS_NAME = "CLASS_DB_URL"
SECRETS_EXAMPLE = f'{SECRETS_NAME} = "postgresql://USER:PASSWORD@HOST:5432/DATABASE"'

INTRO = (
    "A teacher starts a class here and shows its code; students join it and their screens follow the "
    "teacher's: the same page, the same settings, one section at a time while the teacher presents. "
    "A predict-first question goes to everyone, the teacher sees the answers come in, and reveals them."
)
TEACH = (
    "Start a class, show its code or QR code, and your students' screens follow yours: "
    "the page, its settings and, in presenter mode, the section. Predict-first questions go to every student."
)
AFTER_START = (
    "Now go to any page: the class follows you there, page, settings and (in presenter mode) section. "
    "Switch **Predict first** on where a page has it, and every student gets the question."
)
JOIN_HOW = "Students join with this link, or type the code on their Class page:"
KEY_HOW = (
    "With this key you can take the class back after a reload or from another device "
    "(“Take a class back” below). It is shown here once and stored nowhere in clear: write it down."
)
KEY_HIDDEN_PRESENTING = "Your teacher key stays hidden in presenter mode: switch presenter mode off to see it."
# The default database is a file on the app server's own disk (issue #34): say what that means
# where a teacher deploys, and how to keep classes instead.
ON_THIS_DISK = (
    "This app keeps its classes in a file on its server's own disk. Streamlit Community Cloud "
    "does not keep that disk when the app reboots or is redeployed: every open class ends then, "
    "with its answers."
)
KEEP_TITLE = "Keep classes across a reboot: a hosted PostgreSQL database"
KEEP_STEPS = (
    "1. Create a PostgreSQL database with any host that offers one, and copy its address "
    "(it starts with `postgresql://`).\n"
    "2. On Streamlit Community Cloud, open the app's **Settings → Secrets** and add this line, "
    "with your database's address:"
)
KEEP_AFTER = (
    "3. Save. The app restarts and keeps its classes in that database from then on; "
    "several copies of the app can share it."
)


def qr_png(link: str, width_px: int) -> tuple[bytes, int]:
    """The join link as a QR code at most ``width_px`` wide: PNG, black on white with the
    standard 4-module margin, a whole number of pixels per module (so the browser shows it
    unscaled, with sharp edges). Returns the PNG and its width."""
    qr = segno.make(link, error="m")
    scale = max(1, width_px // qr.symbol_size(scale=1, border=QR_BORDER)[0])
    out = io.BytesIO()
    qr.save(out, kind="png", scale=scale, border=QR_BORDER, dark="black", light="white")
    return out.getvalue(), qr.symbol_size(scale=scale, border=QR_BORDER)[0]


def app_url(browser_url: str | None) -> str:
    """The app's address as the browser reached it, without this page's path, a query or a
    fragment (``st.context.url``; a fallback where no browser said it)."""
    parts = urlsplit((browser_url or "").strip())
    if not (parts.scheme and parts.netloc):
        return FALLBACK_URL
    path = parts.path.rstrip("/")
    if path == f"/{CLASS_PATH}" or path.endswith(f"/{CLASS_PATH}"):
        path = path[: -len(CLASS_PATH) - 1]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def join_link(base: str, code: str) -> str:
    """The link that joins class ``code``: the app's address with ``?room=CODE``."""
    return f"{base}/?room={code}"


def following_now(n: int) -> str:
    return f"Students following now: **{n}**"


def class_sees(page_title: str, section: str = "") -> str:
    """Where the class is: the page's title, and the section while the teacher presents."""
    return f"The class sees: {md_escape(page_title)}" + (f" · {md_escape(section)}" if section else "")


def in_class(code: str, following: bool) -> str:
    """A student's line on the Class page."""
    if following:
        return f"You are in class **{code}**: your screen follows your teacher's."
    return f"You are in class **{code}**, exploring alone. “Follow again” at the top brings you back."


def unavailable(reason: str) -> str:
    return f"Class mode is not available right now. {md_escape(reason)} Every other page works as usual."


def ended(code: str) -> str:
    """The notice after the teacher ends the class (plain text)."""
    return f"Class {code} has ended: its answers are deleted."
