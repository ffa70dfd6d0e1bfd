"""``Idempotency-Key`` on every POST under ``/api/v1`` (docs/integrations.md, "Idempotency").

The route class (``routing.UnitOfWorkRoute``) does it for every route: ``service.begin`` reads
the header, ``service.guarded`` replays a stored answer in place of the endpoint once the caller
is authenticated and allowed, and ``Attempt.keep`` stores a successful answer in the request's
own transaction. The maintenance job purges keys past their 24 hours (``tasks``).
"""
