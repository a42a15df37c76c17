"""Room codes and teacher keys: random strings from one alphabet without look-alikes.

A room code is short enough to read off a projector and type on a phone (6 characters, 30
bits); a teacher key is long enough that nobody can guess it (26 characters, 130 bits). Both
come from ``secrets``. Only a key's SHA-256 is stored: the key is itself 130 random bits, so a
slow password hash would add nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

# Capitals and digits without the pairs that look alike: no 0/O and no 1/I.
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6  # 32**6 ≈ 1.07e9 codes
KEY_LENGTH = 26  # 26 * 5 = 130 random bits
KEY_GROUP = 4  # shown as XXXX-XXXX-...-XX
BITS_PER_CHAR = 5  # len(ALPHABET) == 2**5
_SEPARATORS = str.maketrans("", "", " -_\t\n")


def new_code() -> str:
    """A random room code, e.g. ``K7XQ2M``."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def new_key() -> str:
    """A random teacher key, grouped for reading: ``K7XQ-M2PD-...``."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(KEY_LENGTH))
    return "-".join(raw[i : i + KEY_GROUP] for i in range(0, KEY_LENGTH, KEY_GROUP))


def new_id() -> str:
    """A random id for one browser session (a student) or one teacher's tab: 128 bits, hex."""
    return secrets.token_hex(16)


def normalize(text: str) -> str:
    """What a person typed, as the code or key it stands for: capitals, no spaces or dashes."""
    return str(text).translate(_SEPARATORS).upper()


def is_code(text: str) -> bool:
    """Whether ``text`` (normalized) could be a room code."""
    return len(text) == CODE_LENGTH and all(c in ALPHABET for c in text)


def hash_key(key: str) -> str:
    """The stored form of a teacher key (hex SHA-256 of its normalized form)."""
    return hashlib.sha256(normalize(key).encode("ascii", "replace")).hexdigest()


def key_matches(key: str, stored: str) -> bool:
    """Whether ``key`` is the one whose hash is ``stored`` (constant-time comparison)."""
    return hmac.compare_digest(hash_key(key), stored)
