"""Outbound webhooks: a project's receivers, signed as Standard Webhooks specifies, delivered
by the job kit in order per record and retried for 3 days (docs/integrations.md)."""
