"""Billing (PRODUCT §12): checkout and portal sessions, and the processor's webhook.

Stripe or the built-in local processor; the webhook moves a workspace's plan and subscription
status.
"""
