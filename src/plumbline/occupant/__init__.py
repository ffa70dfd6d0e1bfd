"""The occupant portal: links managed by the project, requests reported through them."""
