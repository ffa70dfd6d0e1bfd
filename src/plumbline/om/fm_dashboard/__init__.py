"""The FM dashboard: ``.../om/fm-dashboard``."""
