"""A memory acted on wherever it is shown: its context menu, and the pickers that find
another memory to link it to or replace it with."""
