"""Local models: the GGUF wrapper, next-token scoring, model discovery, provisioning, CPU budget."""
