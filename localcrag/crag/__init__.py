"""The CRAG loop, one module per step (rewrite, retrieve, grade, decide, refine, web) and the
pipeline that runs them; the answer writing they hand the kept evidence to is ``answer/``."""
