"""Streamlit helpers shared by the pages (imports streamlit; the engine never imports this)."""
