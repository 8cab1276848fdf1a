"""The rows of any listing of memories (search results, pickers, shelves): what a row
holds and how it is drawn."""
