"""The service's home page (HTML or JSON links) and the API docs pages."""
