"""Class mode: rooms a teacher opens and students follow, their predict-first polls, and
their storage through SQLAlchemy (SQLite by default, PostgreSQL for several app servers).

Plain Python: no Streamlit here. The Class page (lessons/class_room/page.py) and class mode on
every page (the ui.class_mode package) are thin layers over ``Classroom``.

    from classroom import Classroom, storage

    engine = storage.make_engine(storage.default_url())
    storage.prepare(engine)  # tables and schema version
    rooms = Classroom(engine)
    teacher = rooms.open_room(client="tab-1")
"""

from classroom.limits import Limits, RateLimit
from classroom.model import PollQuestion, RefusedError, RoomState, Tally, Teacher, UnavailableError, View
from classroom.rooms import Classroom, no_room

__all__ = [
    "Classroom",
    "Limits",
    "PollQuestion",
    "RateLimit",
    "RefusedError",
    "RoomState",
    "Tally",
    "Teacher",
    "UnavailableError",
    "View",
    "no_room",
]
