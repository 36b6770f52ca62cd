"""The CRAG loop, one module per step: retrieve, grade, decide, refine, web, generate; and the pipeline that runs them."""
