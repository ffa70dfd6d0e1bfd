# The live server of the viewer tests: co-viewing (SSE) needs a real socket.
from tests.viewer.conftest import live, live_url

__all__ = ["live", "live_url"]
