"""Local models: the GGUF wrapper, likelihood scoring, model discovery, provisioning, CPU budget."""
