"""Events: one row per change of a resource integrators follow, written in the change's
transaction by the audit call that records it (``hooks.Event``, ``catalogue.TYPES``)."""
