"""Maintenance schedules, their preventive work orders and completions."""
