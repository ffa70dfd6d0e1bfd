"""The client's side of a proposal: read, view, accept, decline, request changes, write."""
