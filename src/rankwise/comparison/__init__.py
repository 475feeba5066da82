"""Comparing systems and dialects: paired per-query comparisons with tests, intervals and corrections
(:mod:`.systems`, :mod:`.stats`), one run under every dialect (:mod:`.dialects`), and reports of them
(:mod:`.report`)."""
