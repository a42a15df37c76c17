"""Text a student (or a prankster) might type into any text box, by name so that tests get
readable ids. Shared by the AppTest suites and the browser suite: every page must survive each
of these without an exception, without NaN, and without turning the text into HTML, markdown
links or LaTeX commands."""

HOSTILE: dict[str, str] = {
    "empty": "",
    "whitespace": "   \t\n  ",  # a browser's one-line box drops the newline: still blank
    "10k_chars": "attention " * 1000,
    "600_words": " ".join(f"word{i % 50}" for i in range(600)),
    "long_word": "a" * 3000,  # one 3,000-character token
    "emoji_zwj": "family 👨‍👩‍👧‍👦 flag 🏳️‍🌈 🇫🇷 cat 🐈‍⬛ thumbs 👍🏽 ❤️ and 😀 smiles",  # ZWJ, skin tone, flags
    "cjk": "我爱自然语言处理 日本語のテキスト 한국어",  # Chinese without spaces, Japanese, Korean
    "rtl": "مرحبا بالعالم الجميل",  # right-to-left only
    "rtl_override": "القطة جلست على الحصيرة שלום עולם \u202eevil\u202c text",  # mixed, RIGHT-TO-LEFT OVERRIDE
    "zero_width": "zero\u200bwidth\u200c joiner\u200d and\ufeff bom",
    "control_chars": "ctrl\x00nul\x01\x07bell\x1b[31mred\x7f end",  # NUL, bell, an ANSI escape, DEL
    "html_script": "<script>alert(1)</script>",
    "html_img": "</script><img src=x onerror=alert(1)>",
    "html_iframe": "<iframe src=javascript:alert(1)>",
    "markdown": "**x** _y_ # h",
    "md_link": "[x](javascript:alert(1))",
    "latex": "$\\href{javascript:alert(1)}{x}$",
    "latex_display": "$$x$$ \\frac{1}{2}",
}
