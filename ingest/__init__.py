"""Local extractors and chunking: plain extracted documents in, never the database."""

import os

# Set before anything imports onnxruntime (the embedder, faster-whisper's voice detection):
# otherwise it writes a device id and an event queue under ~/.cache/Microsoft and sends them
# out from native threads that no Python socket guard sees. It reads the variable only once,
# when first loaded. huggingface_hub comes with faster-whisper; Cairn never calls it (models
# are folders), and offline mode makes a stray call fail instead of downloading.
os.environ["ORT_DISABLE_TELEMETRY"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
