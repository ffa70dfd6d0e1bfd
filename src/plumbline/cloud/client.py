"""Authlib's httpx OAuth client, imported once.

Authlib 1.7+ prefers the ``httpx2`` fork and warns on every import that falls back to
``httpx``, the client this project uses throughout; the warning would be the one line of a
server's stderr that is not JSON.
"""

import warnings

from authlib.deprecate import AuthlibDeprecationWarning

with warnings.catch_warnings():
    warnings.simplefilter("ignore", AuthlibDeprecationWarning)
    from authlib.integrations.httpx_client import AsyncOAuth2Client

__all__ = ["AsyncOAuth2Client"]
