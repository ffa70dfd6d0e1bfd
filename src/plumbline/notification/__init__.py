"""In-app notifications: written by the domains, listed and marked read by their user."""
