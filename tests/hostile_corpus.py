"""Text a student (or a prankster) might type into any text box. Shared by the AppTest
suites and the browser suite: every page must survive each of these without an exception,
without NaN, and without turning the text into HTML, markdown links or LaTeX commands."""

HOSTILE_INPUTS: list[str] = [
    "",  # empty
    "   \t  ",  # whitespace only
    "attention " * 1000,  # 10,000 characters
    " ".join(f"word{i % 50}" for i in range(600)),  # 600 words
    "a" * 3000,  # one very long word
    "family 👨‍👩‍👧‍👦 flag 🏳️‍🌈 and 😀 smiles",  # emoji with ZWJ sequences
    "我爱自然语言处理",  # CJK, no spaces
    "القطة جلست على الحصيرة שלום עולם \u202eevil\u202c text",  # Arabic, Hebrew, RIGHT-TO-LEFT OVERRIDE
    "zero\u200bwidth\u200c joiner\u200d and\ufeff bom",  # zero-width characters
    "ctrl\x00nul\x01\x07bell\x1b[31mred\x7f end",  # control characters and NUL
    "<script>alert(1)</script>",
    "</script><img src=x onerror=alert(1)>",
    "**x** _y_ # h",
    "[x](javascript:alert(1))",
    "$\\href{javascript:alert(1)}{x}$",
    "<iframe src=javascript:alert(1)>",
]
