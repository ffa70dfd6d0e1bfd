"""Calendar feeds: secret iCalendar URLs of what is due for a user or in a project."""
