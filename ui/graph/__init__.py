"""The graph view: the scene of a vault's graph, its canvas, labels and tiles."""
