"""The report as a PDF, drawn by fpdf2 (pure Python) from the same HTML the HTML export has.

A Unicode font is used when the system has DejaVu (most Linux systems do); otherwise the PDF
falls back to the built-in Latin-1 fonts with the text transliterated, so export never fails
for want of a font file.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from engine.export.document import ExportDocument
from engine.export.html_file import audit_html, body_html, sources_html

_FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu"),
    Path("/usr/local/share/fonts/dejavu"),
    Path("/Library/Fonts"),
)
_FAMILY = {
    "": "DejaVuSans.ttf",
    "B": "DejaVuSans-Bold.ttf",
    "I": "DejaVuSans-Oblique.ttf",
    "BI": "DejaVuSans-BoldOblique.ttf",
}
_MONO = "DejaVuSansMono.ttf"
# Typographic characters the Latin-1 fallback writes in their plain forms.
_PLAIN = str.maketrans(
    {"—": "-", "–": "-", "‘": "'", "’": "'", "“": '"', "”": '"', "…": "...", "•": "*"}
)


def font_dir() -> Path | None:
    for folder in _FONT_DIRS:
        if all((folder / name).is_file() for name in (*_FAMILY.values(), _MONO)):
            return folder
    return None


def latin1(text: str) -> str:
    """Text the built-in PDF fonts can draw: accents kept where Latin-1 has them."""
    plain = text.translate(_PLAIN)
    out = []
    for char in plain:
        if ord(char) < 256:
            out.append(char)
            continue
        decomposed = unicodedata.normalize("NFKD", char).encode("latin-1", "ignore").decode()
        out.append(decomposed or "?")
    return "".join(out)


def _tag_styles(mono: str) -> dict[str, Any]:
    from fpdf.fonts import FontFace, TextStyle

    ink, grey = (25, 25, 25), (90, 90, 90)
    return {
        "h1": TextStyle(color=ink, font_size_pt=20, t_margin=4, b_margin=0.4),
        "h2": TextStyle(color=ink, font_size_pt=15, t_margin=5, b_margin=0.4),
        "h3": TextStyle(color=ink, font_size_pt=12.5, t_margin=4, b_margin=0.4),
        "h4": TextStyle(color=ink, font_size_pt=11.5, t_margin=3, b_margin=0.4),
        "blockquote": TextStyle(color=grey, t_margin=2, b_margin=2, l_margin=6),
        "p": TextStyle(t_margin=0, b_margin=1),
        "pre": TextStyle(font_family=mono, t_margin=2, b_margin=2),
        "code": FontFace(family=mono),
    }


def to_pdf(document: ExportDocument) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_margins(20, 18, 20)
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.set_title(document.title)
    pdf.set_creator("deepresearch")
    fonts = font_dir()
    html = "\n".join(
        [body_html(document), sources_html(document, as_list=False), audit_html(document)]
    )
    if fonts is not None:
        for style, name in _FAMILY.items():
            pdf.add_font("DejaVu", style, str(fonts / name))
        pdf.add_font("DejaVuMono", "", str(fonts / _MONO))
        family, mono = "DejaVu", "DejaVuMono"
    else:
        pdf.set_title(latin1(document.title))
        html, family, mono = latin1(html), "helvetica", "courier"
    pdf.add_page()
    pdf.set_font(family, size=11)
    pdf.write_html(
        html,
        font_family=family,
        tag_styles=_tag_styles(mono),
        li_prefix_color=(90, 90, 90),
    )
    return bytes(pdf.output())
