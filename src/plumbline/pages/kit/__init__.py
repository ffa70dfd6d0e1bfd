"""The web application's kit: what every page shares (CONTRIBUTING.md, "Adding a page").

- ``respond.render``: a template, or to htmx only the block it asked for; the pages' headers.
- ``shell.shell`` + ``shell.page``: the signed-in layout (workspaces, project areas, bell).
- ``csrf.posted``: a form, once its CSRF token and origin are checked; ``forms``: schemas to
  field errors, the double-submit key; ``flash``: a message for the next page.
- ``lists.Listing``: a list page's rows, view and cursor; ``nav.AREAS``: the project sidebar.
- ``errors.error_page``: every refusal under the pages' prefixes; ``static``: hashed files.
- ``i18n``: gettext, English and Spanish, dates and money in the person's language.
"""

from plumbline.pages.kit.brand import PLUMBLINE, Brand, branding, contrast
from plumbline.pages.kit.csrf import CSRF_COOKIE, CSRF_FIELD, CsrfRefused, posted, text
from plumbline.pages.kit.errors import error_page
from plumbline.pages.kit.flash import flash
from plumbline.pages.kit.respond import policy, render
from plumbline.pages.kit.static import router as static_router
from plumbline.pages.kit.static import static_url

__all__ = [
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "PLUMBLINE",
    "Brand",
    "CsrfRefused",
    "branding",
    "contrast",
    "error_page",
    "flash",
    "policy",
    "posted",
    "render",
    "static_router",
    "static_url",
    "text",
]
