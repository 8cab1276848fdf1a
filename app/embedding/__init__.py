"""Sentence embeddings: the shipped model, and the vault's embedding space (its vectors, index and
rebuild) for the active embedder."""
