"""The models floor, below ingest, llm and crag: finding models in models/
(``discovery``), the embedders behind one protocol (``embed``: sentence-transformers on
torch, or its int8 ONNX copy in ``embed_onnx``, with the onnxruntime session builder the
trained reader borrows) and what the CPU offers (``cpu``: usable cores, instruction flags,
how busy other processes keep them). It imports nothing of localcrag but ``errors``."""
