"""Rich text of RFI messages: a small tag whitelist, everything else stripped.

Allowed: p, br, b, strong, i, em, u, ul, ol, li, blockquote, code, pre, and ``a`` with an
``href`` whose scheme is http, https or mailto. Every other attribute is dropped; other tags are
removed but keep their text, except the ones whose content is never text (script, style...),
which disappear whole. The output is well nested: stray end tags are ignored and open tags are
closed at the end. The cleaning is ammonia's (``nh3``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import nh3

ALLOWED = frozenset(
    {"p", "br", "b", "strong", "i", "em", "u", "ul", "ol", "li", "a", "blockquote", "code", "pre"}
)
DROP_CONTENT = {
    "script",
    "style",
    "iframe",
    "object",
    "embed",
    "template",
    "noscript",
    "textarea",
    "title",
    "head",
    "svg",
    "math",
    "select",
}
BLOCK_BREAKS = frozenset({"p", "br", "li", "blockquote", "pre", "ul", "ol", "div", "tr"})
CLEANER = nh3.Cleaner(
    tags=ALLOWED,
    clean_content_tags=DROP_CONTENT,
    attributes={"a": {"href"}},
    url_schemes={"http", "https", "mailto"},
    url_relative="deny",
    link_rel=None,
)
LINK_TAG = re.compile(r"(<a(?: [^>]*)?>|</a>)")


def _unwrap_bare_links(clean: str) -> str:
    """Ammonia keeps an ``a`` whose ``href`` it refused: unwrap it, keeping its text."""
    out: list[str] = []
    kept: list[bool] = []
    for index, part in enumerate(LINK_TAG.split(clean)):
        if index % 2 == 0:
            out.append(part)
        elif part == "</a>":
            if kept.pop():
                out.append(part)
        else:
            kept.append(part != "<a>")
            if kept[-1]:
                out.append(part)
    return "".join(out)


def sanitize(body: str) -> str:
    clean = CLEANER.clean(body)
    # A stray ``</p>`` opens an empty paragraph in an HTML5 parser: it is dropped, as before.
    return _unwrap_bare_links(clean).replace("<p></p>", "").strip()


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in BLOCK_BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCK_BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def to_text(body: str | None) -> str:
    """Plain text of sanitised HTML (for CSV exports and notification bodies)."""
    if not body:
        return ""
    parser = _Text()
    parser.feed(body)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)
