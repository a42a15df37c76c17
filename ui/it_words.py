"""What one head of the real model does with "it" in the two animal sentences, stated from the
model's own numbers (``attn_core.models.it_rows``). Plain Python: the Real model page and Step by
step both say it."""

from __future__ import annotations

from ui.markup import md_escape


def it_numbers(rows: dict[str, dict]) -> str:
    """The weights "it" gives "animal" and "street" with "tired" and with "congested", and, for
    "congested", whether "animal" still gets the most weight or which token does."""
    tired, cong = rows["tired"], rows["congested"]
    still = (
        "“animal” still gets the most weight, so this one head does not settle what “it” refers to"
        if cong["top"] == "animal"
        else f"the most weight now goes to “{md_escape(cong['top'])}”"
    )
    return (
        f"with “tired”, “it” puts {tired['animal']:.2f} of its weight on “animal” ({tired['street']:.2f} on "
        f"“street”); with “congested”, {cong['animal']:.2f} on “animal” and {cong['street']:.2f} on “street”. "
        f"In the congested case {still}."
    )
