"""Rich text of RFI messages: a small tag whitelist, everything else stripped.

Allowed: p, br, b, strong, i, em, u, ul, ol, li, blockquote, code, pre, and ``a`` with an
``href`` whose scheme is http, https or mailto. Every other attribute is dropped; other tags are
removed but keep their text, except the ones whose content is never text (script, style...),
which disappear whole. The output is well nested: stray end tags are ignored and open tags are
closed at the end.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser

ALLOWED = frozenset(
    {"p", "br", "b", "strong", "i", "em", "u", "ul", "ol", "li", "a", "blockquote", "code", "pre"}
)
VOID = frozenset({"br"})
DROP_CONTENT = frozenset(
    {
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
)
SAFE_SCHEMES = ("http:", "https:", "mailto:")
BLOCK_BREAKS = frozenset({"p", "br", "li", "blockquote", "pre", "ul", "ol", "div", "tr"})


def _safe_href(value: str | None) -> str | None:
    if not value:
        return None
    # Browsers ignore control characters and whitespace inside a scheme ("java\tscript:").
    compact = "".join(ch for ch in value if ord(ch) > 32 and ch != "\x7f")
    if compact.lower().startswith(SAFE_SCHEMES):
        return value.strip()
    return None


class _Sanitizer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []
        self.skip_depth = 0
        self.skip_tag: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skip_depth:
            if tag == self.skip_tag:
                self.skip_depth += 1
            return
        if tag in DROP_CONTENT:
            self.skip_tag, self.skip_depth = tag, 1
            return
        if tag not in ALLOWED:
            return
        self._close_implied(tag)
        if tag == "a":
            href = _safe_href(dict(attrs).get("href"))
            if href is None:
                return
            self.out.append(f'<a href="{html.escape(href, quote=True)}">')
        else:
            self.out.append(f"<{tag}>")
        if tag not in VOID:
            self.open.append(tag)

    def _close_implied(self, tag: str) -> None:
        """A new ``li`` ends the open item of the same list; a new ``p`` ends the open one."""
        if tag not in ("li", "p") or tag not in self.open:
            return
        index = len(self.open) - 1 - self.open[::-1].index(tag)
        barriers = ("ul", "ol") if tag == "li" else ("ul", "ol", "li", "blockquote")
        if any(t in barriers for t in self.open[index + 1 :]):
            return
        self.handle_endtag(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            self.handle_starttag(tag, attrs)
        elif tag not in DROP_CONTENT:
            self.handle_starttag(tag, attrs)
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skip_depth:
            if tag == self.skip_tag:
                self.skip_depth -= 1
            return
        if tag not in self.open:
            return
        while self.open:
            current = self.open.pop()
            self.out.append(f"</{current}>")
            if current == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self.skip_depth:
            self.out.append(html.escape(data, quote=False))

    def result(self) -> str:
        self.close()
        self.out.extend(f"</{tag}>" for tag in reversed(self.open))
        self.open = []
        return "".join(self.out)


def sanitize(body: str) -> str:
    parser = _Sanitizer()
    parser.feed(body)
    return parser.result().strip()


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
