"""The proposal letter: a cover letter (or template body) with PRODUCT §8's variables filled in.

Templates are Jinja2 text run in the sandbox, restricted further to what a letter needs: output
of variables (``{{client.name}}``), attribute/item look-ups, a few text filters (``upper``,
``lower``, ``title``, ``capitalize``, ``trim``, ``default``) and ``{% if %}`` blocks. Loops,
calls, arithmetic, assignments, macros and includes are refused when the template is checked
(``check``), so a template can neither reach Python internals nor make the server loop. Unknown
variables render empty.

The HTML letter is rendered as text and escaped as a whole (the template's own text is user
text too), then ``{{items.table}}`` is put in as markup built from escaped cells.

The variables (PRODUCT §8): ``client.name|email|company``, ``project.name``, ``company.name``,
``proposal.total|reference|validUntil|title``, ``today``, ``items.table``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from jinja2 import ChainableUndefined, TemplateSyntaxError, nodes
from jinja2.exceptions import TemplateError
from jinja2.sandbox import SandboxedEnvironment

from plumbline.errors import InvalidField, ValidationFailed

DEFAULT_LETTER = (
    "Dear {{client.name|default('client', true)}},\n\n"
    "Thank you for the opportunity to price {{project.name}}. Please find our proposal "
    "{{proposal.reference}} below, for a total of {{proposal.total}}. "
    "It is valid until {{proposal.validUntil}}.\n\n"
    "{{items.table}}\n\n"
    "Kind regards,\n{{company.name}}"
)
FILTERS = frozenset({"upper", "lower", "title", "capitalize", "trim", "default", "d"})
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹"}
# The nodes a letter may use; anything else is refused by ``check``.
_ALLOWED = (
    nodes.Template,
    nodes.Output,
    nodes.TemplateData,
    nodes.Name,
    nodes.Getattr,
    nodes.Getitem,
    nodes.Const,
    nodes.Filter,
    nodes.If,
    nodes.Not,
    nodes.And,
    nodes.Or,
    nodes.Compare,
    nodes.Operand,
    nodes.CondExpr,
    nodes.Test,
)


class _LetterEnvironment(SandboxedEnvironment):
    """Look-ups reach the letter's own values only (dict keys): never an attribute or method of
    a Python object, whose text (``<built-in method ...>``) would differ from run to run."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, dict) and attribute in obj:
            return obj[attribute]
        return self.undefined(obj=obj, name=attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(obj, dict) and isinstance(argument, str) and argument in obj:
            return obj[argument]
        return self.undefined(obj=obj, name=str(argument))


def _environment() -> SandboxedEnvironment:
    env = _LetterEnvironment(
        autoescape=False, undefined=ChainableUndefined, keep_trailing_newline=True
    )
    env.filters = {name: env.filters[name] for name in FILTERS}
    env.tests = {name: env.tests[name] for name in ("defined", "undefined", "none")}
    env.globals = {}
    return env


_TEXT = _environment()
# Where ``{{items.table}}`` goes in the HTML letter (a NUL never survives in stored text).
_TABLE = "\x00items.table\x00"


def check(body: str, field: str) -> None:
    """400 naming ``field`` when ``body`` is not a letter template this module renders."""
    try:
        tree = _TEXT.parse(body)
    except TemplateSyntaxError as error:
        raise InvalidField(
            field, f"template syntax error: {error.message}", error="Validation failed"
        ) from None
    for node in tree.find_all(nodes.Node):
        if not isinstance(node, _ALLOWED):
            raise InvalidField(
                field,
                f"templates may not use {type(node).__name__.lower()}",
                error="Validation failed",
            )
        if isinstance(node, nodes.Filter | nodes.Test) and node.name not in (
            _TEXT.filters if isinstance(node, nodes.Filter) else _TEXT.tests
        ):
            raise InvalidField(
                field, f"unknown filter or test: {node.name}", error="Validation failed"
            )


def money(value: str | Decimal, currency: str) -> str:
    """``1250.5`` in EUR -> ``€1,250.50``; a currency without a symbol keeps its code."""
    amount = f"{Decimal(value):,.2f}"
    symbol = SYMBOLS.get(currency)
    return f"{symbol}{amount}" if symbol else f"{currency} {amount}"


def day(value: str | datetime | date | None) -> str:
    """An ISO date or date-time as ``23 Nov 2026``."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return f"{value.day} {value:%b %Y}"


def number(value: str) -> str:
    """A quantity as written, without trailing zeros (``33.3333``, ``2``)."""
    return format(Decimal(value).normalize(), "f")


def items_html(proposal: Mapping[str, Any]) -> str:
    """The items as an HTML table (every user value escaped)."""
    currency = proposal["currency"]
    rows = []
    for item in proposal["items"]:
        name = html.escape(item["name"])
        description = item.get("description")
        if description:
            name += f"<br><small>{html.escape(description)}</small>"
        unit = html.escape(item.get("unit") or "")
        rows.append(
            f'<tr><td>{name}</td><td class="num">{number(item["quantity"])}</td>'
            f'<td>{unit}</td><td class="num">{money(item["rate"], currency)}</td>'
            f'<td class="num">{money(item["lineTotal"], currency)}</td></tr>'
        )
    total = money(proposal["total"], currency)
    return (
        '<table class="items"><thead><tr><th>Item</th><th>Qty</th><th>Unit</th>'
        "<th>Rate</th><th>Line total</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody>"
        f'<tfoot><tr><th colspan="4">Total</th><th class="num">{total}</th></tr></tfoot>'
        "</table>"
    )


def items_text(proposal: Mapping[str, Any]) -> str:
    currency = proposal["currency"]
    lines = []
    for item in proposal["items"]:
        unit = f" {item['unit']}" if item.get("unit") else ""
        lines.append(
            f"- {item['name']}: {number(item['quantity'])}{unit} x "
            f"{money(item['rate'], currency)} = {money(item['lineTotal'], currency)}"
        )
    lines.append(f"Total: {money(proposal['total'], currency)}")
    return "\n".join(lines)


def variables(
    proposal: Mapping[str, Any], *, project_name: str, company_name: str, today: date
) -> dict[str, Any]:
    """The template variables of one proposal (its API read dict), without ``items.table``."""
    return {
        "client": {
            "name": proposal.get("clientName") or "",
            "email": proposal.get("clientEmail") or "",
            "company": proposal.get("clientCompany") or "",
        },
        "project": {"name": project_name},
        "company": {"name": company_name},
        "proposal": {
            "title": proposal["title"],
            "reference": proposal["reference"],
            "total": money(proposal["total"], proposal["currency"]),
            "validUntil": day(proposal["validUntil"]),
            "currency": proposal["currency"],
        },
        "today": day(today),
    }


def _body(proposal: Mapping[str, Any], template: str | None) -> str:
    return template if template is not None and template.strip() else DEFAULT_LETTER


def render_html(
    proposal: Mapping[str, Any],
    *,
    project_name: str,
    company_name: str,
    today: date,
    template: str | None = None,
) -> str:
    """The letter as an HTML fragment (``template`` defaults to the proposal's cover letter, and
    an empty one to ``DEFAULT_LETTER``); 400 when the template is refused by ``check``.

    The letter is rendered as text and then escaped as a whole, so the template's own text is
    escaped as well as every value; ``{{items.table}}`` is put in afterwards as markup."""
    body = _body(proposal, template if template is not None else proposal.get("coverLetter"))
    check(body, "coverLetter")
    values = variables(proposal, project_name=project_name, company_name=company_name, today=today)
    values["items"] = {"table": _TABLE}
    try:
        rendered = _TEXT.from_string(body.replace(_TABLE, "")).render(values)
    except TemplateError as error:
        raise InvalidField(
            "coverLetter", f"template error: {error.message}", error="Validation failed"
        ) from None
    return _paragraphs(html.escape(rendered), items_html(proposal))


def render_text(
    proposal: Mapping[str, Any],
    *,
    project_name: str,
    company_name: str,
    today: date,
    template: str | None = None,
    items_table: str | None = None,
) -> str:
    """The letter as plain text (for the PDF and text e-mails). Never fails: a template this
    module refuses is shown as written. ``items_table`` replaces the text list of the items
    (the PDF, which has its own price table, points to it)."""
    body = _body(proposal, template if template is not None else proposal.get("coverLetter"))
    values = variables(proposal, project_name=project_name, company_name=company_name, today=today)
    values["items"] = {"table": items_text(proposal) if items_table is None else items_table}
    try:
        check(body, "coverLetter")
        return _TEXT.from_string(body).render(values)
    except (ValidationFailed, TemplateError):
        return body


# Where ``{{items.table}}`` stands in the letter the client reads: the price table follows it.
TABLE_NOTE = "(See the price table below.)"


def instant(value: str) -> datetime:
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def document_date(proposal: Mapping[str, Any]) -> date:
    """The date the letter and its document carry: when it was sent, else when it was created
    (never the wall clock, so the letter reads the same every time)."""
    return instant(proposal.get("sentAt") or proposal["createdAt"]).date()


def as_sent(proposal: Mapping[str, Any], *, project_name: str, company_name: str) -> str:
    """The letter the client is sent, filled in: the one rendering of the PDF (so of the
    e-mail's attachment too) and of the client's portal. ``{{today}}`` is the document's date,
    ``{{items.table}}`` points to the price table that follows it."""
    return render_text(
        proposal,
        project_name=project_name,
        company_name=company_name,
        today=document_date(proposal),
        items_table=TABLE_NOTE,
    )


def _paragraphs(escaped: str, table: str) -> str:
    """Blank lines separate paragraphs, single newlines break lines; the items table stands
    on its own between paragraphs."""
    text = escaped.replace("\r\n", "\n").replace(_TABLE, f"\n\n{_TABLE}\n\n")
    out = []
    for block in text.split("\n\n"):
        block = block.strip("\n")
        if not block.strip():
            continue
        if block == _TABLE:
            out.append(table)
        else:
            out.append("<p>" + block.replace("\n", "<br>\n") + "</p>")
    return "\n".join(out)


def page(title: str, fragment: str) -> str:
    """A whole HTML document around a letter fragment (the preview)."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
        f'<body><article class="letter">\n{fragment}\n</article></body></html>\n'
    )


STYLE = (
    "body{font-family:system-ui,sans-serif;color:#222;max-width:46rem;margin:2rem auto;"
    "line-height:1.5}table.items{border-collapse:collapse;width:100%;margin:1rem 0}"
    "table.items th,table.items td{border-bottom:1px solid #ddd;padding:.35rem .5rem;"
    "text-align:left;vertical-align:top}table.items .num{text-align:right;white-space:nowrap}"
    "table.items tfoot th{text-align:right}small{color:#666}"
)
