"""The app's pages; ``pages.common`` holds the widgets several pages share."""
