"""Public token routes: anyone holding the opaque token in the path (invites, portals)."""
