"""Documents in: parse -> chunk -> embed -> store (LanceDB), incremental."""
