"""Sign-up, sign-in, sessions and the current user (``/api/auth/*`` and ``/api/v1/me``).

The routes follow Better Auth's REST contract so its browser client works unchanged. One
deliberate difference: the ``token`` field of every answer (sign-up, sign-in, change-password,
get-session and list-sessions) is the session's **id**, a non-secret handle. The secret token
travels only in the HttpOnly ``auth.session_token`` cookie and is stored only as a hash, so no
JSON answer ever carries a usable credential; ``revoke-session {token}`` takes that id.
"""
