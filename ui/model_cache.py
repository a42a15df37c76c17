"""The one cached copy of a real model that every page and session shares.

torch and transformers are imported inside the functions, not at the top, so a page that
imports this module (the step-by-step page) still starts without them; they load only when
a user asks for a real model.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import streamlit as st

if TYPE_CHECKING:
    from attn_core.models import LoadedModel

log = logging.getLogger(__name__)


@st.cache_resource(show_spinner="Loading the model (a few seconds, once per server)…", max_entries=2)
def _load(name: str, source: str) -> LoadedModel:
    """One LoadedModel per (name, source) for every session; ``source`` is part of the key."""
    from attn_core import models

    return models.load_model(name)


def try_load(name: str | None = None) -> tuple[LoadedModel | None, str | None]:
    """The cached model, or None and a plain message saying why it is unavailable."""
    from attn_core import models

    name = name or models.DEFAULT_MODEL
    try:
        return _load(name, models.model_source(name)), None
    except (models.ModelLoadError, ValueError) as err:
        log.warning("model %s unavailable: %s", name, err)
        return None, str(err)
    except Exception as err:  # anything else: a plain message on the page, details in the log
        log.exception("model %s failed to load", name)
        return None, f"The model {name} could not be loaded ({type(err).__name__})."


@st.cache_data(max_entries=4, show_spinner=False)
def it_head(_loaded: LoadedModel, name: str) -> tuple[int, int]:
    """``attn_core.models.it_head``: the (layer, head) the pages suggest for "it", once per model."""
    from attn_core import models

    return models.it_head(_loaded)


@st.cache_data(max_entries=4, show_spinner=False)
def it_rows(_loaded: LoadedModel, name: str, layer: int, head: int) -> dict[str, dict]:
    """``attn_core.models.it_rows``, once per model and head for every session."""
    from attn_core import models

    return models.it_rows(_loaded, layer, head)
