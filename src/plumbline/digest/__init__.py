"""Daily digests: what each lists (``om.py``), how one is sent (``service.py``), when."""
