"""Class mode on every page: a teacher's screen goes to the room, students follow it.

app.py runs each page through ``run_page``. For a session in no class (and no ``?room=`` in
its address) that is just ``page.run()``: no database is touched and SQLAlchemy is not even
imported. Otherwise ``follow`` does the work. The modules, from the bottom up (no module
imports one above it; import-linter checks that there are no cycles):

- ``session``: what class mode keeps in a browser session's state (light: Streamlit only)
- ``ticker``: a fragment that reruns on a timer and stays safe across full runs
- ``store``: this server's class database (``CLASS_DB_URL``, or a default SQLite file)
- ``words``: the sentences class mode shows, as plain functions of the room's numbers
- ``roles``: this session's part in a class (teacher, student, neither) and the moves between
- ``poll``: the class's poll, drawn where a page asks a predict-first question
- ``backend``: the poll as ui.quiz's backend (ui.quiz never imports class mode)
- ``follow``: every page's run in a class (publish, follow, the follower's loop)

The Class page (lessons/class_room/page.py) starts, joins and ends classes through ``roles``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ui.class_mode import session

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage


def run_page(page: StreamlitPage, pages: Sequence[StreamlitPage]) -> None:
    """``page.run()``, and for a session in a class the class around it."""
    if not session.active():
        page.run()
        return
    from ui.class_mode import follow  # SQLAlchemy, once per server, only when someone uses a class

    follow.run_page(page, pages)
