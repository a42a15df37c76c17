"""Home: what self-attention is, the one formula, and a tour of the pages."""

import streamlit as st

st.title("Self-Attention Explorer")
st.markdown(
    "Self-attention lets every token in a sentence look at every other token and decide "
    "how much of each one to mix into its own meaning. Each token asks a question (its "
    "**query**), offers a label (its **key**) and carries content (its **value**). "
    "Comparing one query with all keys gives scores; a softmax turns the scores into "
    "weights that add up to 1; the token's new vector is the weighted mix of the values."
)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")
st.markdown(
    """
**A tour of the pages**

- **Step by step**: type a sentence and follow every matrix, from the embeddings X to the
  output Z, with one cell worked through by hand.
- **Softmax and scaling lab**: why scores are divided by √d_k, and what happens when they are not.
- **Multi-head**: several heads look at the same sentence in different ways, then get mixed by W_O.
- **Cross-attention**: queries from one sentence, keys and values from another.
- **Masks and cost**: causal, sliding-window and dilated masks, and why global attention costs T².
- **Real model**: the attention heads of a real BERT model, with head, model and neuron views.

Every number on these pages is computed live by the `attn_core` Python package, which you can also import in a notebook.
"""
)
