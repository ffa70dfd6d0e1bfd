"""Punch items: per-project deficiency lists with an enforced review workflow."""
