"""Self-Attention Explorer: the list of pages. Nothing heavy is imported here."""

import streamlit as st

st.set_page_config(page_title="Self-Attention Explorer", page_icon="🔍", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon="🏠", default=True),
]

st.navigation(PAGES).run()
