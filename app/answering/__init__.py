"""Answers with citations: a question answered from the sentences of the memories search finds."""
