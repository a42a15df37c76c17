"""The Streamlit helpers the lesson pages share: inputs, charts, the model cache, turn-taking."""
