"""Queued e-mail: ``queue(uow, Mail(...))`` and the ``mail.send`` job that delivers it."""
