"""Requests for information: numbered questions routed to responders and answered officially."""
