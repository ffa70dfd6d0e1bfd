"""Billing (PRODUCT §12): checkout and portal sessions with Stripe or the built-in local
processor, and the processor's webhook that moves a workspace's plan and subscription status."""
