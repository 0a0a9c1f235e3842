"""The client's defaults: requests in flight and how long a request may take.

The client (``LinkServiceClient``, its ``RateLimiter``) starts from them; the config
checks a profile's ``concurrency:`` and ``--concurrency`` against the ceiling, and the
command line's help shows them.
"""

from __future__ import annotations

#: Requests in flight at most, unless a profile or ``--concurrency`` says otherwise: a
#: ceiling (the limiter keeps about rate x latency in flight below it, api/limiter.py).
DEFAULT_CONCURRENCY = 64
#: The most ``--concurrency`` (or a profile) may ask for.
MAX_CONCURRENCY = 64
#: Seconds a request may take before it counts as unanswered.
DEFAULT_TIMEOUT = 30.0
