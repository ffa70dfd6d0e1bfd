"""Assets, their meters and readings: ``.../om/assets``."""
