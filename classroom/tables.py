"""The class database's tables (SQLAlchemy 2 typed declarative mapping).

Times are Unix seconds (floats) from the Classroom's clock, so tests can move time. Every
table but the first hangs off a room; deleting a room deletes its questions, members and
answers (explicitly in ``Classroom.expire``, and by the foreign keys' ON DELETE CASCADE).
"""

from __future__ import annotations

from sqlalchemy import Boolean, Float, ForeignKey, ForeignKeyConstraint, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA_VERSION = 1  # bump with a migration in storage.MIGRATIONS when a table changes


class Base(DeclarativeBase):
    pass


class Meta(Base):
    """Facts about the database itself: ``schema_version``."""

    __tablename__ = "class_meta"

    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class Room(Base):
    """An open class: its code, the hash of its teacher key, the tab that holds it, and the
    teacher's view (JSON) at ``version``, which goes up by one on every change the followers
    must see (a move, a new question, a reveal)."""

    __tablename__ = "class_rooms"

    code: Mapped[str] = mapped_column(String(6), primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64))
    holder: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[float] = mapped_column(Float)
    active_at: Mapped[float] = mapped_column(Float, index=True)  # expiry counts from here
    version: Mapped[int] = mapped_column(Integer, default=1)
    view: Mapped[str] = mapped_column(Text, default="")
    poll: Mapped[str] = mapped_column(Text, default="")  # the current questions' signatures, comma-separated


class Question(Base):
    """A question the teacher's screen has asked in this room; ``revealed`` once its answers are."""

    __tablename__ = "class_questions"

    room: Mapped[str] = mapped_column(ForeignKey("class_rooms.code", ondelete="CASCADE"), primary_key=True)
    signature: Mapped[str] = mapped_column(String(16), primary_key=True)
    n_options: Mapped[int] = mapped_column(Integer)
    has_value: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)
    asked_at: Mapped[float] = mapped_column(Float)


class Member(Base):
    """A student in a room: a random id per browser session, nothing else about them."""

    __tablename__ = "class_members"

    room: Mapped[str] = mapped_column(ForeignKey("class_rooms.code", ondelete="CASCADE"), primary_key=True)
    student: Mapped[str] = mapped_column(String(32), primary_key=True)
    joined_at: Mapped[float] = mapped_column(Float)
    seen_at: Mapped[float] = mapped_column(Float, index=True)  # "following now" counts from here


class Answer(Base):
    """One student's current answer to one question (changeable until the reveal)."""

    __tablename__ = "class_answers"
    __table_args__ = (
        ForeignKeyConstraint(
            ["room", "signature"], ["class_questions.room", "class_questions.signature"], ondelete="CASCADE"
        ),
    )

    room: Mapped[str] = mapped_column(String(6), primary_key=True)
    signature: Mapped[str] = mapped_column(String(16), primary_key=True)
    student: Mapped[str] = mapped_column(String(32), primary_key=True)
    option: Mapped[int] = mapped_column(Integer)
    estimate: Mapped[float | None] = mapped_column(Float, nullable=True)
    at: Mapped[float] = mapped_column(Float)
